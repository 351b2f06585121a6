package cuckoo

import (
	"encoding/base64"
	"fmt"
	"io"
)

// Decoding into a ConcurrentFilter, which replaces the whole filter, hash
// and Config included; its text encoding, Clone and Merge.

// UnmarshalBinary is Filter.UnmarshalBinary, also on a zero
// ConcurrentFilter (a keyed encoding needs one made with its Key). It must
// not run while other goroutines use the filter; after an error the filter
// is unchanged.
func (f *ConcurrentFilter[T]) UnmarshalBinary(data []byte) error {
	h, t, err := decode(data, kindOf[T](), checkAll, f.c.h.sip())
	if err != nil {
		return err
	}
	r := decodedReader[T](&h, t, f.c.h.sip())
	f.c.load(&r, ctableOf(&r.t), int(h.maxKicks), h.rng)
	return nil
}

// ReadFrom replaces the filter with one read from r, exactly one encoding,
// as Filter.ReadFrom does, and returns the number of bytes read. It
// allocates a buffer of the bytes read (never more, whatever the header
// claims), then the table and, as NewConcurrent does, the inserts' search
// queue of 64 bytes a MaxKicks step. It must not run while other
// goroutines use the filter; after an error the filter is unchanged.
func (f *ConcurrentFilter[T]) ReadFrom(r io.Reader) (int64, error) {
	buf, err := readEncoding(r)
	if err == nil {
		err = f.UnmarshalBinary(buf)
	}
	return int64(len(buf)), err
}

// AppendText is Filter.AppendText.
func (f *ConcurrentFilter[T]) AppendText(b []byte) ([]byte, error) {
	bin, err := f.MarshalBinary()
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
// writes, which it stops meanwhile. The clone of a zero ConcurrentFilter is
// zero.
func (f *ConcurrentFilter[T]) Clone() *ConcurrentFilter[T] {
	c := &f.c
	g := &ConcurrentFilter[T]{}
	if c.cur.Load() == nil {
		return g
	}
	c.stop() // every stripe held: no word changes meanwhile
	defer c.start()
	s := c.cur.Load()
	n := newCtable(s.t)
	s.copyTo(n.t.data[:tableBytes(s.t.m, s.t.bbits)])
	r := c.reader(n.t)
	g.c.load(&r, n, c.maxKicks, c.rng)
	return g
}

// Merge adds every fingerprint that o holds to f, as Filter.Merge does,
// with its conditions and errors; to merge another ConcurrentFilter, pass
// its Snapshot. Lookups go on meanwhile and never miss a key: Merge fills a
// copy of the table and publishes it once every fingerprint is in; writers
// wait for it. On error the filter is unchanged.
func (f *ConcurrentFilter[T]) Merge(o *Filter[T]) error {
	if o == nil {
		return fmt.Errorf("%w: Merge with a nil *Filter", ErrIncompatible)
	}
	c := &f.c
	if c.cur.Load() == nil {
		return errZeroConcurrent
	}
	c.stop()
	defer c.start()
	old := c.cur.Load()
	old.sealed.Store(true) // a claim from now on may miss the copy (concurrent.insert)
	m := Filter[T]{c: c.snapshot()}
	err := m.checkMerge(o)
	if err == nil {
		err = m.c.mergeTable(&o.c.t) // m is a copy: merge in place
	}
	if err != nil {
		old.sealed.Store(false) // claims meanwhile are in old, which stays
		return err
	}
	s := ctableOver(m.c.t) // m's own table: the snapshot's copy or a doubling of it
	c.count, c.rng = m.c.count, m.c.rng
	c.publish(s)
	return nil
}
