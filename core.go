package cuckoo

import (
	"math/bits"
	"unsafe"
)

// reader is what queries need: Filter and View share it and its lookup.
type reader struct {
	h           hasher
	kind        keyKind   // how keys of the filter's type are hashed
	keys        probeKind // how Contains's keys reach lookup's switch: keysOf(kind)
	t           table
	count       int
	capacity    int
	maxCapacity int // = capacity for a fixed filter
	wait        int // calls of Advance before an expiring table may halve (shrink.go); a filter's state that encodings carry
}

// core is a filter's whole state: its reader and what modifying needs.
type core struct {
	reader
	maxKicks int
	rng      uint64 // displacement PRNG state, seeded from the seed
	kickBuf  []byte // the path of a long displacement walk; see kick
}

func newCore(r reader, maxKicks int) core {
	c := core{reader: r, maxKicks: maxKicks, rng: r.h.seed}
	if maxKicks > kickStackSteps {
		c.kickBuf = make([]byte, (maxKicks+3)/4)
	}
	return c
}

// kickStackSteps is the longest displacement walk whose path is kept on the
// stack; longer MaxKicks use a buffer allocated with the filter.
const kickStackSteps = 512

// rand returns the next value of the displacement PRNG (wyrand).
func (c *core) rand() uint64 {
	c.rng += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(c.rng, c.rng^0xe7037ed1a0b428db)
	return hi ^ lo
}

// setKey makes r keyed by key, unless it is all zero.
func (r *reader) setKey(key [16]byte) {
	if key == ([16]byte{}) {
		return
	}
	s := newSipHasher(key)
	r.h.secret = keyRef{unsafe.Pointer(&s)}
	r.kind |= kindKeyed
	r.keys = keysOf(r.kind)
}

// keyCheck is the check value of the reader's key, 0 if it has none.
func (r *reader) keyCheck() uint64 {
	if r.h.sip() == nil {
		return 0
	}
	return r.h.sip().string(keyCheckMessage)
}

// keyCheckMessage is what a key's check value is the SipHash of.
const keyCheckMessage = "cuckoo key check"
