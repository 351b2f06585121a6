package cuckoo

import "unsafe"

// Single lookups switch on the probe class in Go, where the probe inlines
// into Contains (an assembly call was slower at every width and size);
// batches take assembly or Go by CPU features. Expiring tables' batches
// take the same code on the keys (keyLanes, semiKeyLows): 78 instructions
// a key, not 158 (f = 13, G = 4).

// lookup reports whether the filter holds the key of kind k at p (a hash for
// kindHash), hashing included, in one function so that Contains inlines and
// a lookup costs one call. Nosplit: its frame is small and fixed and its
// callees check the stack (6.21 -> 6.00 ns, 1M keys, f = 8).
//
//go:nosplit
func (r *reader) lookup(k keyKind, p unsafe.Pointer) bool {
	var h uint64
	switch k { // integer keys and hashes without a call
	case kindInt:
		h = r.h.u64(*(*uint64)(p))
	case kindHash:
		h = *(*uint64)(p)
	default:
		if k == kindInvalid { // a zero Filter or View: empty
			return false
		}
		h = r.h.key(k, p)
	}
	t := &r.t
	fp, i1 := t.locate(h)
	i2 := t.alt(i1, fp)
	// probeFixed's switch, written out again: hasWords does not inline.
	switch t.class {
	case class8:
		return has8(t.data, i1, i2, fp)
	case classNarrow: // keyLanes' borrow stops at a lane's top key bit: generation bits are not compared
		pat := uint64(fp) * t.keyLanes.onesLo
		return t.keyLanes.anyZero(t.narrowWord(i1)^pat, t.narrowWord(i2)^pat)
	case class16:
		return has16(t.data, i1, i2, fp)
	case classGrownNarrow:
		l1, l2 := t.layers(h, fp)
		b1, v1 := t.staged(i1, l1, fp)
		b2, v2 := t.staged(i2, l2, fp)
		return t.keyLanes.anyZero(t.narrowWord(b1)^uint64(v1)*t.keyLanes.onesLo, t.narrowWord(b2)^uint64(v2)*t.keyLanes.onesLo)
	case classSemi:
		bp := uint64(fp>>(t.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		return t.semiLanes.anyZero(t.semiLows(t.narrowWord(i1), bp, bl), t.semiLows(t.narrowWord(i2), bp, bl))
	case classExpSemi: // classSemi's, the prefixes' generation bits masked off
		bp := uint64(fp>>(t.w&31)) * 0x1111
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		return t.semiLanes.anyZero(t.semiKeyLows(t.narrowWord(i1), bp, bl), t.semiKeyLows(t.narrowWord(i2), bp, bl))
	case classGrown:
		return t.grownHas(h, fp, i1, i2)
	case classGeneric: // a case of its own: eight make the switch a jump table (2 instructions a lookup)
	}
	return containsAt(t, i1, i2, fp)
}

// grownHas is lookup's probe of classGrown, apart: inline, its values cost
// the other classes' probes registers (2 instructions a lookup, f = 13).
//
//go:noinline
func (t *table) grownHas(h uint64, fp uint32, i1, i2 uint64) bool {
	l1, l2 := t.layers(h, fp)
	b1, v1 := t.staged(i1, l1, fp)
	b2, v2 := t.staged(i2, l2, fp)
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

// has8 tests a packed table of 8-bit fingerprints, both buckets in one
// word: anyZero with the lane constants as immediates.
func has8(data []byte, i1, i2 uint64, fp uint32) bool {
	x := (uint64(load32At(data, i1*4)) | uint64(load32At(data, i2*4))<<32) ^ uint64(fp)*ones8
	return (x-ones8)&^x&tops8 != 0
}

// has16 tests a packed table of 16-bit fingerprints: a bucket a word.
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

func (r *reader) containsHash(h uint64) bool { return r.lookup(kindHash, unsafe.Pointer(&h)) }

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
