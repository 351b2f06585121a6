//go:build gc && !purego

#include "go_asm.h"
#include "textflag.h"

// Batch probes of the packed layout (lookup_arm64.go says what each does
// and how far it reads). Not used: R18 (platform), R26-R30 (Go's).

// Registers of both functions.
#define tp R0
#define cnt R2
#define base R4

// Registers of locatePackedARM64.
#define hp R1
#define scr R3
#define fpRange R5
#define m R6
#define bbits R7
#define gold R8
#define i R9
#define h R10
#define fp R11
#define i1 R12
#define r R13
#define i2 R14
#define slot R15
#define addr R16
#define last R17

// func locatePackedARM64(t *table, hs *uint64, n int, s *probeScratch)
TEXT ·locatePackedARM64(SB), NOSPLIT, $0-32
	MOVD t+0(FP), tp
	MOVD hs+8(FP), hp
	MOVD n+16(FP), cnt
	MOVD s+24(FP), scr
	MOVD table_data(tp), base
	MOVD table_fpRange(tp), fpRange
	MOVD table_m(tp), m
	MOVD table_shape+shape_bbits(tp), bbits
	MOVW $0x9e3779b1, gold
	MOVD $0, i

	// last = base + the probe's load length less one (8 or 16 bytes), so
	// that both the first and the last line the probe reads are prefetched.
	MOVD table_shape+shape_f(tp), addr
	MOVD $7, last
	MOVD $15, h
	CMP  $16, addr
	CSEL HI, h, last, last
	ADD  base, last, last

locateLoop:
	CMP  cnt, i
	BGE  locateDone
	MOVD (hp)(i<<3), h

	// fp = lo32(h) * (2^f-1) >> 32 + 1; both factors < 2^32.
	MOVWU h, fp
	MUL   fpRange, fp, fp
	LSR   $32, fp, fp
	ADD   $1, fp, fp

	// i1 = hi32(h) * m >> 32
	LSR $32, h, i1
	MUL m, i1, i1
	LSR $32, i1, i1

	// r = uint32(fp * 0x9e3779b1) * m >> 32 | 1 (MULW keeps 32 bits)
	MULW gold, fp, r
	MUL  m, r, r
	LSR  $32, r, r
	ORR  $1, r, r

	// i2 = m - i1 - r, plus m if that is negative
	SUB  i1, m, i2
	SUBS r, i2, i2
	ADD  m, i2, h
	CSEL MI, h, i2, i2

	// bit positions, stored for the probe, and prefetches
	MUL  bbits, i1, i1
	MUL  bbits, i2, i2
	ADD  i<<3, scr, slot
	MOVD i1, probeScratch_pos1(slot)
	MOVD i2, probeScratch_pos2(slot)
	MOVD fp, probeScratch_fp(slot)
	ADD  i1>>3, base, addr
	PRFM (addr), PLDL1KEEP
	ADD  i1>>3, last, addr
	PRFM (addr), PLDL1KEEP
	ADD  i2>>3, base, addr
	PRFM (addr), PLDL1KEEP
	ADD  i2>>3, last, addr
	PRFM (addr), PLDL1KEEP

	ADD $1, i, i
	B   locateLoop

locateDone:
	RET

#undef hp
#undef scr
#undef fpRange
#undef m
#undef bbits
#undef gold
#undef i
#undef h
#undef fp
#undef i1
#undef r
#undef i2
#undef slot
#undef addr
#undef last

// Registers of probePacked.
#define scr R1
#define fnd R3
#define i R5
#define count R6
#define onesLo R7
#define restLo R8
#define topsLo R9
#define onesHi R10
#define restHi R11
#define topsHi R12
#define pat R13
#define patHi R14
#define pos R15
#define off R16
#define sh R17
#define lo R19
#define hi R20
#define t1 R21
#define t2 R22
#define acc R23

// func probePacked(t *table, s *probeScratch, n int, found *bool) int
TEXT ·probePacked(SB), NOSPLIT, $0-40
	MOVD t+0(FP), tp
	MOVD s+8(FP), scr
	MOVD n+16(FP), cnt
	MOVD found+24(FP), fnd
	MOVD table_data(tp), base
	MOVD table_shape+shape_lanes+lanes_onesLo(tp), onesLo
	MOVD table_shape+shape_keyLanes+lanes_restLo(tp), restLo
	MOVD table_shape+shape_keyLanes+lanes_topsLo(tp), topsLo
	MOVD table_shape+shape_lanes+lanes_onesHi(tp), onesHi
	MOVD table_shape+shape_keyLanes+lanes_restHi(tp), restHi
	MOVD table_shape+shape_keyLanes+lanes_topsHi(tp), topsHi
	MOVD $0, i
	MOVD $0, count
	MOVD table_shape+shape_f(tp), R24
	CMP  $16, R24
	BHI  wideLoop

// f <= 16: one 8-byte load and a shift read a bucket (<= 64 bits from bit
// 0..7 of a byte); rest and tops, both widths: keyLanes', without generation
// bits. BUCKET64 sets reg to the bucket at field(t1), word >> (pos&7) ^ pat.
#define BUCKET64(field, reg) \
	MOVD field(t1), pos \
	LSR  $3, pos, off \
	AND  $7, pos, sh \
	MOVD (base)(off), reg \
	LSR  sh, reg, reg \
	EOR  pat, reg, reg

narrowLoop:
	CMP  cnt, i
	BGE  probeDone
	ADD  i<<3, scr, t1
	MOVD probeScratch_fp(t1), pat
	MUL  onesLo, pat, pat // fp in every lane
	BUCKET64(probeScratch_pos1, lo)
	BUCKET64(probeScratch_pos2, hi)

	// A lane is zero (fp matched) iff its top bit is clear in
	// (x&rest + rest) | x; a match in either bucket clears it in the AND.
	AND  restLo, lo, t1
	ADD  restLo, t1, t1
	ORR  lo, t1, t1
	AND  restLo, hi, t2
	ADD  restLo, t2, t2
	ORR  hi, t2, t2
	AND  t2, t1, t1
	BICS t1, topsLo, t1 // tops &^ t1
	CSET NE, t1
	MOVB t1, (fnd)(i)
	ADD  t1, count, count
	ADD  $1, i, i
	B    narrowLoop

// f > 16: a bucket is up to 128 bits from bit 0..7 of its first byte: two
// 8-byte loads and a double shift.
#define BUCKET128(field) \
	MOVD field(t1), pos \
	LSR  $3, pos, off \
	AND  $7, pos, sh \
	ADD  off, base, off \
	MOVD (off), lo \
	MOVD 8(off), hi \
	LSR  sh, lo, lo \
	/* hi << (64-sh) as (hi << 1) << (63-sh): no shift by 64 */ \
	LSL  $1, hi, t2 \
	EOR  $63, sh, off \
	LSL  off, t2, t2 \
	ORR  t2, lo, lo \
	LSR  sh, hi, hi \
	EOR  pat, lo, lo \
	EOR  patHi, hi, hi \
	/* zero128: the carry of the low word goes into the high word */ \
	AND  restLo, lo, t2 \
	AND  restHi, hi, off \
	ADDS restLo, t2, t2 \
	ADC  restHi, off, off \
	ORR  lo, t2, t2 \
	ORR  hi, off, off \
	BIC  t2, topsLo, t2 \
	BIC  off, topsHi, off \
	ORR  t2, acc, acc \
	ORR  off, acc, acc

wideLoop:
	CMP  cnt, i
	BGE  probeDone
	ADD  i<<3, scr, t1
	MOVD probeScratch_fp(t1), pos
	MUL  onesLo, pos, pat
	UMULH onesLo, pos, patHi
	MUL  onesHi, pos, pos
	ADD  pos, patHi, patHi // fp in every lane, 128 bits
	MOVD $0, acc
	BUCKET128(probeScratch_pos1)
	BUCKET128(probeScratch_pos2)
	CMP  $0, acc
	CSET NE, t1
	MOVB t1, (fnd)(i)
	ADD  t1, count, count
	ADD  $1, i, i
	B    wideLoop

probeDone:
	MOVD count, ret+32(FP)
	RET

// func prefetchLines(data *byte, offs *uint64, n int)
TEXT ·prefetchLines(SB), NOSPLIT, $0-24
	MOVD data+0(FP), R0
	MOVD offs+8(FP), R1
	MOVD n+16(FP), R2
	ADD  $7, R0, R3
	CMP  $0, R2
	BLE  prefetchLinesDone

prefetchLinesLoop:
	MOVD.P 8(R1), R4
	ADD    R0, R4, R5
	PRFM   (R5), PLDL1KEEP
	ADD    R3, R4, R5
	PRFM   (R5), PLDL1KEEP
	SUBS   $1, R2
	BNE    prefetchLinesLoop

prefetchLinesDone:
	RET
