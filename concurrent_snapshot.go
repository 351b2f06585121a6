package cuckoo

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
)

// Snapshots and encodings of a ConcurrentFilter: each reads the table
// holding every stripe, between two writes, which wait, while lookups go
// on.

// Snapshot returns an independent Filter copy of the filter as it is
// between two writes: the same keys, Config and seed.
func (f *ConcurrentFilter[T]) Snapshot() *Filter[T] {
	c := &f.c
	if c.cur.Load() == nil {
		return &Filter[T]{}
	}
	c.stop()
	defer c.start()
	return &Filter[T]{c: c.snapshot()}
}

// AppendBinary appends the filter's encoding to b, as a Filter with the
// same contents would, and returns the extended slice. It allocates nothing
// when b has room.
func (f *ConcurrentFilter[T]) AppendBinary(b []byte) ([]byte, error) {
	return f.c.appendBinary(b, kindOf[T]().family())
}

// MarshalBinary returns the filter's encoding; see AppendBinary.
func (f *ConcurrentFilter[T]) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// WriteTo writes the filter's encoding to w and returns the number of bytes
// written. It copies the encoding under the writers' mutex and writes it
// after releasing it, so a slow w never holds up inserts.
func (f *ConcurrentFilter[T]) WriteTo(w io.Writer) (int64, error) {
	b, err := f.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

// reader is a reader of table t, the current one's copy, with the filter's
// fields and current generation; the caller holds every stripe. A free
// table's count is its copy's, which claims may have changed since stop.
func (c *concurrent) reader(t table) reader {
	t.genV = c.genV.Load()
	n := c.count
	if t.class.packedNarrow() {
		n = t.itemsIn(t.data[:tableBytes(t.m, t.bbits)])
	}
	return reader{t: t, h: c.h, kind: c.kind, keys: c.keys, count: n, capacity: c.capacity, maxCapacity: c.maxCapacity,
		wait: c.shrink.now(&t)}
}

// itemsIn is ctable.items of a copy of a free table, its bytes data: of
// the encoder's buffer too, read up to its end.
func (t *table) itemsIn(data []byte) int {
	n := 0
	for b := range t.m {
		p := b * uint64(t.bbits)
		var x [8]byte
		copy(x[:], data[p>>3:])
		n += bits.OnesCount64(t.lanes.zero64(binary.LittleEndian.Uint64(x[:]) >> (p & 7)))
	}
	return int(t.m)*slotsPerBucket - n
}

// appendBinary is AppendBinary; a b without room grows to exactly the
// encoding's size.
func (c *concurrent) appendBinary(b []byte, family keyKind) ([]byte, error) {
	if c.cur.Load() == nil {
		return b, errZeroConcurrent
	}
	c.stop()
	defer c.start()
	s := c.cur.Load()
	t := s.t
	n := int(tableBytes(t.m, t.bbits))
	b = slices.Grow(b, headerSize+n+checksumSize)
	start := len(b)
	b = b[:start+headerSize+n]
	t.data = b[start+headerSize:]
	s.copyTo(t.data) // then the header, of the copy's count
	r := c.reader(t)
	h := encodingHeader(&r, family, c.maxKicks, c.rng)
	h.put((*[headerSize]byte)(b[start:]))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli)), nil
}

// snapshot is a Filter's core with a copy of the table; the caller holds
// every stripe.
func (c *concurrent) snapshot() core {
	s := c.cur.Load()
	t := s.t
	t.data = newTableData(tableBytes(t.m, t.bbits))
	s.copyTo(t.data)
	fc := newCore(c.reader(t), c.maxKicks)
	fc.rng = c.rng
	return fc
}
