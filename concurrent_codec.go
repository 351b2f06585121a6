package cuckoo

import (
	"encoding/base64"
	"fmt"
	"io"
)

// Decoding into a ConcurrentFilter, its text encoding, Clone and Merge.
//
// The decoders replace the whole filter, hash and Config included, so like
// any value given to an Unmarshal it must not be in use meanwhile. Clone and
// Merge are safe for concurrent use.

// UnmarshalBinary is Filter.UnmarshalBinary, also on a zero
// ConcurrentFilter (a keyed encoding needs one made with its Key). It must
// not run while other goroutines use the filter; after an error the filter
// is unchanged.
func (f *ConcurrentFilter[T]) UnmarshalBinary(data []byte) error {
	h, t, err := decode(data, kindOf[T](), checkAll, f.c.h.sip())
	if err != nil {
		return err
	}
	f.c.load(decodedReader[T](&h, t, f.c.h.sip()), int(h.maxKicks), h.rng, h.gen)
	return nil
}

// ReadFrom replaces the filter with one read from r, exactly one encoding,
// as Filter.ReadFrom does, and returns the number of bytes read. It
// allocates a buffer of the bytes read (never more, whatever the header
// claims), then the table. It must not run while other goroutines use the
// filter; after an error the filter is unchanged.
func (f *ConcurrentFilter[T]) ReadFrom(r io.Reader) (int64, error) {
	buf, err := readEncoding(r)
	if err == nil {
		err = f.UnmarshalBinary(buf)
	}
	return int64(len(buf)), err
}

// AppendText is Filter.AppendText.
func (f *ConcurrentFilter[T]) AppendText(b []byte) ([]byte, error) {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	if f.c.cur.Load() == nil {
		return b, errZeroConcurrent
	}
	h := f.c.header(kindOf[T]().family())
	bin, err := f.c.appendBinary(make([]byte, 0, h.encodedSize()), h.kind)
	if err != nil {
		return b, err
	}
	return base64.StdEncoding.AppendEncode(b, bin), nil
}

// MarshalText is Filter.MarshalText: encoding/json writes a
// *ConcurrentFilter as a string.
func (f *ConcurrentFilter[T]) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// UnmarshalText is Filter.UnmarshalText (either type's text). It must not
// run while other goroutines use the filter; after an error the filter is
// unchanged.
func (f *ConcurrentFilter[T]) UnmarshalText(text []byte) error {
	data, err := base64.StdEncoding.AppendDecode(nil, text)
	if err != nil {
		return formatErr(ErrCorrupt, "text is not base64: %v", err)
	}
	return f.UnmarshalBinary(data)
}

// Clone returns an independent copy of the filter as it is between two
// writes. The clone of a zero ConcurrentFilter is zero.
func (f *ConcurrentFilter[T]) Clone() *ConcurrentFilter[T] {
	c := &f.c
	c.mu.Lock()
	defer c.mu.Unlock()
	g := &ConcurrentFilter[T]{}
	s := c.cur.Load()
	if s == nil {
		return g
	}
	g.c.configure(c.h, c.kind, c.capacity, c.maxCapacity, c.maxKicks)
	g.c.rng, g.c.count = c.rng, c.count
	g.c.gen.Store(c.gen.Load())
	g.c.n.Store(int64(c.count))
	n := newCtable(s.t)
	copy(n.words, s.words) // writers hold mu: no word changes meanwhile
	g.c.cur.Store(n)
	return g
}

// Merge adds every fingerprint that o holds to f, as Filter.Merge does,
// with its conditions and errors; to merge another ConcurrentFilter, pass
// its Snapshot. Lookups go on meanwhile and never miss a key: Merge fills a
// copy of the table and publishes it once every fingerprint is in. On error
// the filter is unchanged.
func (f *ConcurrentFilter[T]) Merge(o *Filter[T]) error {
	if o == nil {
		return fmt.Errorf("%w: Merge with a nil *Filter", ErrIncompatible)
	}
	c := &f.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur.Load() == nil {
		return errZeroConcurrent
	}
	m := Filter[T]{c: c.snapshot()}
	if err := m.checkMerge(o); err != nil {
		return err
	}
	if err := m.c.mergeTable(&o.c.t); err != nil { // m is a copy: merge in place
		return err
	}
	s := ctableOver(m.c.t) // m's own table: the snapshot's copy or a doubling of it
	c.count, c.rng = m.c.count, m.c.rng
	c.publish(s)
	c.publishCount()
	return nil
}

// load makes c the decoded filter r, its PRNG state rng and current
// generation gen: a fresh state and a table holding a copy of r's buckets,
// published last.
func (c *concurrent) load(r reader, maxKicks int, rng uint64, gen uint) {
	s := ctableOf(&r.t)
	c.configure(r.h, r.kind, r.capacity, r.maxCapacity, maxKicks)
	c.rng, c.count = rng, r.count
	c.gen.Store(uint32(gen))
	c.n.Store(int64(r.count))
	c.cur.Store(s)
}
