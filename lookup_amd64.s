//go:build gc && !purego

#include "go_asm.h"
#include "textflag.h"

// Batch probes of the packed layout. The Go declarations in lookup_amd64.go
// say what each function does that Go cannot and how far it reads.

// PREFETCH_BUCKET prefetches the first and last line the probe loads of the
// bucket at bit position mem, base the data, R10 (LOCATE_ARGS). Clobbers AX.
#define PREFETCH_BUCKET(mem, base) \
	MOVQ mem, AX \
	SHRQ $3, AX \
	PREFETCHT0 (base)(AX*1) \
	PREFETCHT0 (R10)(AX*1)

// PREFETCH_4 prefetches both buckets of the 4 keys at o(R9) of the scratch.
#define PREFETCH_4(o) \
	PREFETCH_BUCKET(probeScratch_pos1+o+0(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos2+o+0(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos1+o+8(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos2+o+8(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos1+o+16(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos2+o+16(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos1+o+24(R9), R8) \
	PREFETCH_BUCKET(probeScratch_pos2+o+24(R9), R8)

// LOCATE_ARGS loads a locating pass's arguments: DI the table, SI the
// hashes, CX their count, DX the scratch, R8 the data and R10 the data plus
// the probe's load length less one, for PREFETCH_BUCKET. Clobbers AX.
#define LOCATE_ARGS \
	MOVQ t+0(FP), DI \
	MOVQ hs+8(FP), SI \
	MOVQ n+16(FP), CX \
	MOVQ s+24(FP), DX \
	MOVQ table_data(DI), R8 \
	LEAQ 7(R8), R10 \
	LEAQ 15(R8), AX \
	CMPQ table_shape+shape_f(DI), $16 \
	CMOVQHI AX, R10

// func locatePackedAVX2(t *table, hs *uint64, n int, s *probeScratch)
TEXT ·locatePackedAVX2(SB), NOSPLIT, $0-32
	LOCATE_ARGS
	VPBROADCASTQ table_fpRange(DI), Y15 // 2^f - 1
	VPBROADCASTQ table_m(DI), Y14       // bucket count, < 2^32
	MOVQ $0x9e3779b1, AX
	MOVQ AX, X13
	VPBROADCASTQ X13, Y13               // alt's odd multiplier
	VPBROADCASTQ table_shape+shape_bbits(DI), Y12   // bits per bucket
	MOVQ $1, AX
	MOVQ AX, X11
	VPBROADCASTQ X11, Y11               // 1 in each lane
	VPXOR Y10, Y10, Y10                 // 0

	SUBQ $4, CX // start of the last whole vector
	XORQ BX, BX

avx2Loop:
	CMPQ BX, CX
	JLE  avx2Vector
	// Past the last whole vector: redo the last 4 hashes once, if any are left.
	LEAQ 4(CX), AX
	CMPQ BX, AX
	JGE  avx2Done
	MOVQ CX, BX

avx2Vector:
	VMOVDQU (SI)(BX*8), Y0
	// fp = lo32(h) * (2^f-1) >> 32 + 1
	VPMULUDQ Y15, Y0, Y1
	VPSRLQ   $32, Y1, Y1
	VPADDQ   Y11, Y1, Y1
	// i1 = hi32(h) * m >> 32
	VPSRLQ   $32, Y0, Y2
	VPMULUDQ Y14, Y2, Y2
	VPSRLQ   $32, Y2, Y2
	// r = uint32(fp * 0x9e3779b1) * m >> 32 | 1; VPMULUDQ reads only the
	// low 32 bits of each lane, which truncates the first product.
	VPMULUDQ Y13, Y1, Y3
	VPMULUDQ Y14, Y3, Y3
	VPSRLQ   $32, Y3, Y3
	VPOR     Y11, Y3, Y3
	// i2 = m - i1 - r, plus m if that is negative
	VPSUBQ   Y2, Y14, Y4
	VPSUBQ   Y3, Y4, Y4
	VPCMPGTQ Y4, Y10, Y5
	VPAND    Y14, Y5, Y5
	VPADDQ   Y5, Y4, Y4
	// bit positions
	VPMULUDQ Y12, Y2, Y2
	VPMULUDQ Y12, Y4, Y4
	LEAQ     (DX)(BX*8), R9
	VMOVDQU  Y2, probeScratch_pos1(R9)
	VMOVDQU  Y4, probeScratch_pos2(R9)
	VMOVDQU  Y1, probeScratch_fp(R9)
	PREFETCH_4(0)
	ADDQ $4, BX
	JMP  avx2Loop

avx2Done:
	VZEROUPPER
	RET

// func locatePackedAVX512(t *table, hs *uint64, n int, s *probeScratch)
TEXT ·locatePackedAVX512(SB), NOSPLIT, $0-32
	LOCATE_ARGS
	VPBROADCASTQ table_fpRange(DI), Z15
	VPBROADCASTQ table_m(DI), Z14
	MOVQ $0x9e3779b1, AX
	VPBROADCASTQ AX, Z13
	VPBROADCASTQ table_shape+shape_bbits(DI), Z12
	MOVQ $1, AX
	VPBROADCASTQ AX, Z11

	SUBQ $8, CX
	XORQ BX, BX

avx512Loop:
	CMPQ BX, CX
	JLE  avx512Vector
	LEAQ 8(CX), AX
	CMPQ BX, AX
	JGE  avx512Done
	MOVQ CX, BX

avx512Vector:
	VMOVDQU64 (SI)(BX*8), Z0
	VPMULUDQ  Z15, Z0, Z1
	VPSRLQ    $32, Z1, Z1
	VPADDQ    Z11, Z1, Z1 // fp
	VPSRLQ    $32, Z0, Z2
	VPMULUDQ  Z14, Z2, Z2
	VPSRLQ    $32, Z2, Z2 // i1
	VPMULUDQ  Z13, Z1, Z3
	VPMULUDQ  Z14, Z3, Z3
	VPSRLQ    $32, Z3, Z3
	VPORQ     Z11, Z3, Z3 // r
	VPSUBQ    Z2, Z14, Z4
	VPSUBQ    Z3, Z4, Z4
	VPSRAQ    $63, Z4, Z5
	VPANDQ    Z14, Z5, Z5
	VPADDQ    Z5, Z4, Z4 // i2
	VPMULUDQ  Z12, Z2, Z2
	VPMULUDQ  Z12, Z4, Z4
	LEAQ      (DX)(BX*8), R9
	VMOVDQU64 Z2, probeScratch_pos1(R9)
	VMOVDQU64 Z4, probeScratch_pos2(R9)
	VMOVDQU64 Z1, probeScratch_fp(R9)
	PREFETCH_4(0)
	PREFETCH_4(32)
	ADDQ $8, BX
	JMP  avx512Loop

avx512Done:
	VZEROUPPER
	RET

// WIDE_BUCKET ors into R13 the match mask (keyLanes' top bits of the lanes
// equal to the pattern R11:R10) of the bucket at bit position
// field(SI)(BX*8); DI is the table, R8 its data. Clobbers AX, CX, DX, R14.
#define WIDE_BUCKET(field) \
	MOVQ  field(SI)(BX*8), CX \
	MOVQ  CX, AX \
	SHRQ  $3, AX \
	ANDQ  $7, CX \
	MOVQ  (R8)(AX*1), DX \
	MOVQ  8(R8)(AX*1), AX \
	SHRQ  CX, AX, DX \
	SHRQ  CX, AX \
	XORQ  R10, DX \
	XORQ  R11, AX \
	MOVQ  AX, R14 \
	ANDQ  table_shape+shape_keyLanes+lanes_restHi(DI), R14 \
	MOVQ  DX, CX \
	ANDQ  table_shape+shape_keyLanes+lanes_restLo(DI), CX \
	ADDQ  table_shape+shape_keyLanes+lanes_restLo(DI), CX \
	ADCQ  table_shape+shape_keyLanes+lanes_restHi(DI), R14 \
	ORQ   DX, CX \
	ORQ   AX, R14 \
	ANDNQ table_shape+shape_keyLanes+lanes_topsLo(DI), CX, CX \
	ANDNQ table_shape+shape_keyLanes+lanes_topsHi(DI), R14, R14 \
	ORQ   R14, CX \
	ORQ   CX, R13

// NARROW_BUCKET sets reg to the bucket whose bit position is at
// field(SI)(BX*8), shifted to bit 0, xor the pattern AX. Clobbers DX.
#define NARROW_BUCKET(field, reg) \
	MOVQ  field(SI)(BX*8), DX \
	MOVQ  DX, reg \
	SHRQ  $3, reg \
	ANDQ  $7, DX \
	MOVQ  (R8)(reg*1), reg \
	SHRXQ DX, reg, reg \
	XORQ  AX, reg

// func probePacked(t *table, s *probeScratch, n int, found *bool) int
TEXT ·probePacked(SB), NOSPLIT, $0-40
	MOVQ t+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ found+24(FP), R9
	MOVQ table_data(DI), R8
	XORQ BX, BX  // i
	XORQ R12, R12 // found count
	CMPQ table_shape+shape_f(DI), $16
	JA   wide

	// f <= 16: one 8-byte load and a shift read a bucket (<= 64 bits from
	// bit 0..7 of a byte); rest, tops: keyLanes', without generation bits.
	MOVQ n+16(FP), CX
	MOVQ table_shape+shape_lanes+lanes_onesLo(DI), R10
	MOVQ table_shape+shape_keyLanes+lanes_restLo(DI), R11
	MOVQ table_shape+shape_keyLanes+lanes_topsLo(DI), R13
	TESTQ CX, CX
	JEQ  done

narrowLoop:
	MOVQ  probeScratch_fp(SI)(BX*8), AX
	IMULQ R10, AX // fp in every lane
	NARROW_BUCKET(probeScratch_pos1, DI)
	NARROW_BUCKET(probeScratch_pos2, R14)
	// A lane is zero (fp matched) iff its top bit is clear in
	// (x&rest + rest) | x; a match in either bucket clears it in the AND.
	MOVQ  DI, AX
	ANDQ  R11, AX
	ADDQ  R11, AX
	ORQ   DI, AX
	MOVQ  R14, DX
	ANDQ  R11, DX
	ADDQ  R11, DX
	ORQ   R14, DX
	ANDQ  DX, AX
	ANDNQ R13, AX, AX // ^AX & tops
	SETNE (R9)(BX*1)
	SETNE AL
	MOVBQZX AL, AX
	ADDQ  AX, R12
	INCQ  BX
	CMPQ  BX, CX
	JB    narrowLoop
	JMP   done

wide:
	// f > 16: a bucket is up to 128 bits from bit 0..7 of its first byte:
	// two 8-byte loads and a double shift. The lane constants stay in memory.
	CMPQ n+16(FP), $0
	JEQ  done

wideLoop:
	// fp in every lane, 128 bits: R11:R10
	MOVQ  probeScratch_fp(SI)(BX*8), DX
	MULXQ table_shape+shape_lanes+lanes_onesLo(DI), R10, R11
	IMULQ table_shape+shape_lanes+lanes_onesHi(DI), DX
	ADDQ  DX, R11

	XORQ R13, R13
	WIDE_BUCKET(probeScratch_pos1)
	WIDE_BUCKET(probeScratch_pos2)

	SETNE (R9)(BX*1)
	SETNE AL
	MOVBQZX AL, AX
	ADDQ  AX, R12
	INCQ  BX
	CMPQ  BX, n+16(FP)
	JB    wideLoop

done:
	MOVQ R12, ret+32(FP)
	RET

// func hashU64AVX512(h *hasher, keys *uint64, n int, out *uint64)
TEXT ·hashU64AVX512(SB), NOSPLIT, $0-32
	MOVQ h+0(FP), DI
	MOVQ keys+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	VPBROADCASTQ hasher_bitflip(DI), Z15
	MOVQ $0x9fb21c651e98df25, AX
	VPBROADCASTQ AX, Z14
	MOVQ $8, AX
	VPBROADCASTQ AX, Z13
	XORQ BX, BX
	TESTQ CX, CX
	JEQ  hashDone

hashLoop:
	VMOVDQU64 (SI)(BX*8), Z0
	VPROLQ    $32, Z0, Z0
	VPXORQ    Z15, Z0, Z0
	// x ^= rotl(x, 49) ^ rotl(x, 24): one three-way XOR (truth table 0x96)
	VPROLQ    $49, Z0, Z1
	VPROLQ    $24, Z0, Z2
	VPTERNLOGQ $0x96, Z2, Z1, Z0
	VPMULLQ   Z14, Z0, Z0
	VPSRLQ    $35, Z0, Z1
	VPADDQ    Z13, Z1, Z1
	VPXORQ    Z1, Z0, Z0
	VPMULLQ   Z14, Z0, Z0
	VPSRLQ    $28, Z0, Z1
	VPXORQ    Z1, Z0, Z0
	VMOVDQU64 Z0, (DX)(BX*8)
	ADDQ $8, BX
	CMPQ BX, CX
	JB   hashLoop

hashDone:
	VZEROUPPER
	RET

// func prefetchLines(data *byte, offs *uint64, n int)
TEXT ·prefetchLines(SB), NOSPLIT, $0-24
	MOVQ data+0(FP), R8
	MOVQ offs+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ 7(R8), R10
	TESTQ CX, CX
	JLE  prefetchLinesDone

prefetchLinesLoop:
	MOVQ (SI), AX
	PREFETCHT0 (R8)(AX*1)
	PREFETCHT0 (R10)(AX*1)
	ADDQ $8, SI
	DECQ CX
	JNZ  prefetchLinesLoop

prefetchLinesDone:
	RET
