package cuckoo

// View is a read-only filter that answers queries straight from an encoding
// (see FORMAT.md), for example from a memory-mapped file, without copying
// its table. It runs the same lookup code as a Filter, so it is as fast, and
// like a Filter's read-only methods it may be used from many goroutines at
// once.
//
// A View keeps referring to the bytes it was made from: they must not change
// while the View is in use. The table bytes are little-endian and read with
// little-endian loads, so an encoding written on one host works on any other.
// A View leaves the memory as it finds it: unlike New, it does not ask for
// huge pages, which for a large mapped file is the mapper's choice
// (madvise(MADV_HUGEPAGE) on Linux, where the file system supports it).
type View[T Hashable] struct {
	keyed[T]
	r reader // keyed's reader, in the same allocation
}

// NewView checks data and returns a View that answers from it. data must be
// exactly one encoding, as AppendBinary, MarshalBinary or WriteTo produce it,
// of a filter whose keys hash like T's (see UnmarshalBinary).
//
// NewView checks the header, the length, the CRC-32C and the table's
// structure, as UnmarshalBinary does, with the same errors; it reads all of
// data once but copies and allocates nothing proportional to it. When data
// is known to be intact, NewViewUnverified skips the O(len(data)) checks.
func NewView[T Hashable](data []byte) (*View[T], error) { return newView[T](data, checkAll) }

// NewViewUnverified is NewView without the checksum and structure checks: it
// checks the header, the length and the key family only, in constant time.
//
// Use it only for bytes whose integrity is already established, for example
// by a checksum that the storage layer verifies, or by an earlier NewView
// over the same unchanged bytes. A corrupt table is not detected: its View
// answers wrongly, including false negatives, and may report a wrong Len. It
// still never reads outside data and never panics.
func NewViewUnverified[T Hashable](data []byte) (*View[T], error) {
	return newView[T](data, checkHeader)
}

func newView[T Hashable](data []byte, level decodeLevel) (*View[T], error) {
	h, t, err := decode(data, kindOf[T](), level)
	if err != nil {
		return nil, err
	}
	v := &View[T]{r: decodedReader(&h, t)}
	v.keyed = keyed[T]{&v.r, kindOf[T]()}
	return v, nil
}
