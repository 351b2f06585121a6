package cuckoo

import (
	"math/bits"
	"unsafe"
)

// copies is how many copies of a key's fingerprint its two buckets hold, for
// Count and CountHash: the key as reader.lookup takes it, through the same
// one switch. One-word buckets are counted written out, exactly (zero64,
// not anyZero, whose borrow may mark lanes above a zero one); a fixed
// table's two buckets are never one (alt). The rest count by the codec.
func (r *reader) copies(pk probeKind, h uint64, p unsafe.Pointer) int {
	t := &r.t
	switch (pk | t.probe) & 63 {
	case probeInts | probe8, probeInts | probeBytes, probeInts | probe16:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probe8, probeHashed | probeBytes, probeHashed | probe16:
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		pat := uint64(fp) * t.keyLanes.onesLo
		return t.keyLanes.count(load64At(t.data, i1*t.bbytes)^pat, load64At(t.data, i2*t.bbytes)^pat)
	case probeInts | probeNibbles:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeNibbles:
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		pat := uint64(fp) * t.keyLanes.onesLo
		p1, p2 := i1*uint64(t.bbits), i2*uint64(t.bbits)
		return t.keyLanes.count(load64At(t.data, p1>>3)>>(p1&4)^pat, load64At(t.data, p2>>3)>>(p2&4)^pat)
	case probeInts | probeSemi, probeInts | probeSemiNibbles, probeInts | probeExpSemi:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeSemi, probeHashed | probeSemiNibbles, probeHashed | probeExpSemi:
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		bp := uint64(fp>>(t.w&31)) * 0x1111 // the mask spares a check of the shift
		bl := uint64(fp&t.lowMask) * t.semiLanes.onesLo
		w1, w2 := t.narrowWord(i1), t.narrowWord(i2)
		if t.probe == probeExpSemi {
			return t.semiLanes.count(t.semiKeyLows(w1, bp, bl), t.semiKeyLows(w2, bp, bl))
		}
		return t.semiLanes.count(t.semiLows(w1, bp, bl), t.semiLows(w2, bp, bl))
	case probeInts | probeGrownNarrow, probeInts | probeGrown, probeInts | probeGeneric:
		h = r.h.u64(*(*uint64)(p))
		fallthrough
	case probeHashed | probeGrownNarrow, probeHashed | probeGrown, probeHashed | probeGeneric:
		return t.countMatches(t.place(h))
	case probeKeys, probeKeys | 1, probeKeys | 2, probeKeys | 3, probeKeys | 4, probeKeys | 5, probeKeys | 6, probeKeys | 7,
		probeKeys | 8, probeKeys | 9, probeKeys | 10, probeKeys | 11, probeKeys | 12, probeKeys | 13, probeKeys | 14, probeKeys | 15,
		probeString, probeString | 1, probeString | 2, probeString | 3, probeString | 4, probeString | 5, probeString | 6,
		probeString | 7, probeString | 8, probeString | 9, probeString | 10, probeString | 11, probeString | 12,
		probeString | 13, probeString | 14, probeString | 15:
		if t.probe == probeNone {
			return 0
		}
		return r.copies(probeHashed, r.h.key(r.kind, p), nil)
	}
	return 0 // a zero filter's hash, and values no probe and key class make
}

// count is the number of zero lanes of x1 and x2, each four lanes of a
// word's low bits.
func (l *lanes) count(x1, x2 uint64) int {
	return bits.OnesCount64(l.zero64(x1)) + bits.OnesCount64(l.zero64(x2))
}
