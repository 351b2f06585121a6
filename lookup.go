package cuckoo

import "unsafe"

// Single lookups take one switch, on a key class (how the key reaches its
// hash) or'd with the table's probe (which code tests its buckets), both
// fixed when the reader and the table are made; the probe inlines into
// lookup (an assembly call was slower at every width and size). Batches
// take assembly or Go by CPU features. Expiring tables' batches take the
// same code on the keys (keyLanes, semiKeyLows): 78 instructions a key,
// not 158 (f = 13, G = 4).

// lookup reports whether the filter may hold a key of key class pk: the
// key at p (probeKeys, probeInts, probeString) or the hash h
// (probeHashed). One switch on pk and the table's probe picks how the key
// is hashed and which probe tests its buckets: a probeInts case hashes the
// key and falls through to its probeHashed twin, whose probe is written
// out, constants as constants (a probe in a function of its own is over the
// inlining budget; a copy of the probe in the probeInts case saves the
// jump, 1 to 4 instructions a lookup, not worth a second copy of every
// probe). Strings and []byte go to lookupString, keys of other kinds to
// lookupKey; a zero filter finds nothing. Nosplit: its frame is small and
// fixed and its callees check the stack (6.21 -> 6.00 ns, 1M keys, f = 8).
//
//go:nosplit
func (r *reader) lookup(pk probeKind, h uint64, p unsafe.Pointer) bool {
	// The mask and the cases of every value spare the jump table a bounds
	// check: the switch is an or, an and and a jump.
	switch (pk | r.t.probe) & 63 {
	case probeInts | probe8:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probe8: // has8, its loads loadLE32
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		x := (uint64(loadLE32(r.t.data, i1*4)) | uint64(loadLE32(r.t.data, altOn(i1, fp, r.t.m0)*4))<<32) ^ uint64(fp)*ones8
		return (x-ones8)&^x&tops8 != 0
	case probeInts | probeBytes:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeBytes: // keyLanes' borrow stops at a lane's top key bit: generation bits are not compared
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		pat := uint64(fp) * r.t.keyLanes.onesLo
		return r.t.keyLanes.anyZero(loadLE64(r.t.data, i1*r.t.bbytes)^pat, loadLE64(r.t.data, altOn(i1, fp, r.t.m0)*r.t.bbytes)^pat)
	case probeInts | probeNibbles:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeNibbles: // a bucket at bit p starts 0 or 4 bits into byte p/8
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		pat := uint64(fp) * r.t.keyLanes.onesLo
		p1, p2 := i1*uint64(r.t.bbits), altOn(i1, fp, r.t.m0)*uint64(r.t.bbits)
		return r.t.keyLanes.anyZero(loadLE64(r.t.data, p1>>3)>>(p1&4)^pat, loadLE64(r.t.data, p2>>3)>>(p2&4)^pat)
	case probeInts | probe16:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probe16: // has16, its loads loadLE64
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		pat := uint64(fp) * ones16
		x1, x2 := loadLE64(r.t.data, i1*8)^pat, loadLE64(r.t.data, altOn(i1, fp, r.t.m0)*8)^pat
		return ((x1-ones16)&^x1|(x2-ones16)&^x2)&tops16 != 0
	case probeInts | probeSemi:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeSemi:
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		bp := uint64(fp>>(r.t.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&r.t.lowMask) * r.t.semiLanes.onesLo
		return r.t.semiLanes.anyZero(r.t.semiLows(loadLE64(r.t.data, i1*r.t.bbytes), bp, bl), r.t.semiLows(loadLE64(r.t.data, altOn(i1, fp, r.t.m0)*r.t.bbytes), bp, bl))
	case probeInts | probeSemiNibbles:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeSemiNibbles:
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		bp := uint64(fp>>(r.t.w&31)) * 0x1111
		bl := uint64(fp&r.t.lowMask) * r.t.semiLanes.onesLo
		p1, p2 := i1*uint64(r.t.bbits), altOn(i1, fp, r.t.m0)*uint64(r.t.bbits)
		return r.t.semiLanes.anyZero(r.t.semiLows(loadLE64(r.t.data, p1>>3)>>(p1&4), bp, bl), r.t.semiLows(loadLE64(r.t.data, p2>>3)>>(p2&4), bp, bl))
	case probeInts | probeExpSemi:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeExpSemi: // probeSemi's, the prefixes' generation bits masked off
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		bp := uint64(fp>>(r.t.w&31)) * 0x1111
		bl := uint64(fp&r.t.lowMask) * r.t.semiLanes.onesLo
		return r.t.semiLanes.anyZero(r.t.semiKeyLows(r.t.narrowWord(i1), bp, bl), r.t.semiKeyLows(r.t.narrowWord(altOn(i1, fp, r.t.m0)), bp, bl))
	case probeInts | probeGrownNarrow:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGrownNarrow: // each bucket where the stage puts it, for the value it holds there; probeNibbles' loads, whole bytes or not
		fp, i1 := locateOn(h, r.t.fpRange, r.t.m0)
		i2 := altOn(i1, fp, r.t.m0)
		l1, l2 := r.t.layers(h, fp)
		b1, v1 := r.t.staged(i1, l1, fp)
		b2, v2 := r.t.staged(i2, l2, fp)
		p1, p2 := b1*uint64(r.t.bbits), b2*uint64(r.t.bbits)
		return r.t.keyLanes.anyZero(loadLE64(r.t.data, p1>>3)>>(p1&4)^uint64(v1)*r.t.keyLanes.onesLo, loadLE64(r.t.data, p2>>3)>>(p2&4)^uint64(v2)*r.t.keyLanes.onesLo)
	case probeInts | probeGrown:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGrown:
		return r.t.grownHas(h)
	case probeInts | probeGeneric:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGeneric:
		fp, i1 := r.t.locate(h)
		return containsAt(&r.t, i1, r.t.alt(i1, fp), fp)
	case probeKeys | 1, probeKeys | 2, probeKeys | 3, probeKeys | 4, probeKeys | 5, probeKeys | 6, probeKeys | 7,
		probeKeys | 8, probeKeys | 9, probeKeys | 10:
		return r.lookupKey(p)
	case probeString | 1, probeString | 2, probeString | 3, probeString | 4, probeString | 5, probeString | 6,
		probeString | 7, probeString | 8, probeString | 9, probeString | 10:
		return r.lookupString(p)
	case probeKeys | probeNone, probeKeys | 11, probeKeys | 12, probeKeys | 13, probeKeys | 14, probeKeys | 15,
		probeInts | probeNone, probeInts | 11, probeInts | 12, probeInts | 13, probeInts | 14, probeInts | 15,
		probeHashed | probeNone, probeHashed | 11, probeHashed | 12, probeHashed | 13, probeHashed | 14, probeHashed | 15,
		probeString | probeNone, probeString | 11, probeString | 12, probeString | 13, probeString | 14, probeString | 15:
		// A zero filter, and values no probe and key class make.
	}
	return false
}

// lookupKey is lookup of a key of class probeKeys, from a table: hashed by
// otherKey (hasher.key's other cases are probeInts', probeString's and
// probeHashed's), then lookup's switch again, after the calls the hash
// makes anyway. lookup, nosplit, may not call itself: the linker forbids
// the cycle.
//
//go:noinline
func (r *reader) lookupKey(p unsafe.Pointer) bool {
	return r.lookup(probeHashed, r.h.otherKey(r.kind, p), nil)
}

// lookupString is lookup of a key of class probeString: a string, or a
// []byte read as one, hashed as str does, str16 inlined.
//
//go:noinline
func (r *reader) lookupString(p unsafe.Pointer) bool {
	s := *(*string)(p)
	if uint64(len(s))-9 > 7 {
		return r.lookup(probeHashed, r.h.str(s), nil)
	}
	return r.lookup(probeHashed, r.h.str16(s), nil)
}

// grownHas is probeGrown, apart: inline, its values cost the other
// probes registers (2 instructions a lookup, f = 13).
//
//go:noinline
func (t *table) grownHas(h uint64) bool {
	fp, i1 := t.locate(h)
	l1, l2 := t.layers(h, fp)
	b1, v1 := t.staged(i1, l1, fp)
	b2, v2 := t.staged(t.alt(i1, fp), l2, fp)
	return t.holds(b1, v1)|t.holds(b2, v2) != 0
}

// probeFixed is lookup's probe of hash h for a fixed table of shape s, m
// base buckets and data, such as an encoding probed in place (encoded.go).
func (s *shape) probeFixed(data []byte, m, h uint64) bool {
	fp, i1 := locateOn(h, s.slotMax, m)
	i2 := altOn(i1, fp, m)
	switch s.class {
	case class8:
		return has8(data, i1, i2, fp)
	case class16:
		return has16(data, i1, i2, fp)
	case classNarrow, classSemi:
		return s.hasWords(data, i1, i2, fp)
	}
	var t table
	t.setShape(m, s.f, 0, 0, s.layout, 0)
	t.data = data
	return containsAt(&t, i1, i2, fp)
}

// has8 is probe8's test, the same for a table's bytes (data) or an
// encoding's: both buckets in one word, anyZero with the lane constants
// as immediates.
func has8(data []byte, i1, i2 uint64, fp uint32) bool {
	x := (uint64(load32At(data, i1*4)) | uint64(load32At(data, i2*4))<<32) ^ uint64(fp)*ones8
	return (x-ones8)&^x&tops8 != 0
}

// has16 is probe16's test: a bucket a word.
func has16(data []byte, i1, i2 uint64, fp uint32) bool {
	pat := uint64(fp) * ones16
	x1 := load64At(data, i1*8) ^ pat
	x2 := load64At(data, i2*8) ^ pat
	return ((x1-ones16)&^x1|(x2-ones16)&^x2)&tops16 != 0
}

// hasWords tests a table of classNarrow or classSemi, whose buckets one
// word at a bit offset holds (shape.word).
func (s *shape) hasWords(data []byte, i1, i2 uint64, fp uint32) bool {
	w1, w2 := s.word(data, i1), s.word(data, i2)
	if s.class == classSemi {
		bp := uint64(fp>>(s.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&s.lowMask) * s.semiLanes.onesLo
		return s.semiLanes.anyZero(s.semiLows(w1, bp, bl), s.semiLows(w2, bp, bl))
	}
	pat := uint64(fp) * s.lanes.onesLo
	return s.lanes.anyZero(w1^pat, w2^pat)
}

// loadLE64 and loadLE32 are load64At and load32At for lookup's probes,
// written as the or of the bytes, which the compiler makes the same one
// load: binary.LittleEndian's call, inlined, leaves an inline mark that
// becomes a NOP when no instruction is left on its line (2 a lookup).
// Their inlining costs more, which lookup, never inlined, does not mind.
func loadLE64(b []byte, o uint64) uint64 {
	p := (*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

func loadLE32(b []byte, o uint64) uint32 {
	p := (*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), o))
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

// The lowest and highest bit of every 8-bit and 16-bit lane of a word.
const (
	ones8  = 0x0101010101010101
	tops8  = 0x8080808080808080
	ones16 = 0x0001000100010001
	tops16 = 0x8000800080008000
)

// containsBatch probes every hash and returns how many were found; found[i]
// receives the answer for hs[i] where i < len(found).
func containsBatch(t *table, hs []uint64, found []bool) int {
	if t.data == nil { // a zero Filter or View
		return containsNone(len(hs), found)
	}
	if t.batchAsm() {
		return containsBatchAsm(t, hs, found)
	}
	if t.g > 0 { // a growable table's buckets are not where locate says
		return containsEach(t, hs, found)
	}
	return containsBatchGeneric(t, hs, found)
}

// batchAsm reports whether t's batches take the assembly: where the CPU
// has it, for a fixed table below 2^32 buckets (32-bit indexes, no stages).
func (t *table) batchAsm() bool {
	return haveAsm && useBatchAsm && t.m < 1<<32 && t.g == 0
}

// prefetchBuckets fetches both buckets of each hash of hs (<= batchChunk)
// without waiting: by the assembly's locating pass, else by plain loads.
func prefetchBuckets(t *table, hs []uint64) {
	if t.batchAsm() {
		prefetchBucketsAsm(t, hs)
		return
	}
	touchBuckets(t, hs)
}

// hashBatch sets out[i] = h.u64(keys[i]); len(out) >= len(keys).
func hashBatch(h *hasher, keys []uint64, out []uint64) {
	if haveAsm && useWideAsm {
		hashBatchAsm(h, keys, out)
		return
	}
	hashBatchGeneric(h, keys, out)
}

// ProbeImplementation names the probe code in use: "avx512" or "avx2" on
// amd64, "arm64" on arm64 (scalar assembly with prefetches), "generic" for
// pure Go (other platforms, the purego build tag, or a CPU or GODEBUG
// setting that rules the assembly out).
func ProbeImplementation() string {
	if !haveAsm || !useBatchAsm {
		return "generic"
	}
	return asmName()
}

func (r *reader) containsHash(h uint64) bool { return r.lookup(probeHashed, h, nil) }

// containsNone is a batch's answer for n keys from a zero filter: none.
func containsNone(n int, found []bool) int {
	clear(found[:min(n, len(found))])
	return 0
}

// containsEach is containsBatch one lookup at a time.
func containsEach(t *table, hs []uint64, found []bool) int {
	r := reader{t: *t}
	n := 0
	for i, h := range hs {
		ok := r.containsHash(h)
		if i < len(found) {
			found[i] = ok
		}
		if ok {
			n++
		}
	}
	return n
}
