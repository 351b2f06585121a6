package cuckoo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
)

// The binary format, version 1, is described in FORMAT.md: a 64-byte header,
// the table's data exactly as it is in memory (buckets packed little-endian,
// then tablePad zero bytes), and a CRC-32C of everything before it. Keeping
// the padding in the encoding is what lets a View probe the encoded bytes in
// place with the same 64-bit loads as a Filter.

const (
	formatVersion = 1
	headerSize    = 64 // the table starts 64-byte aligned in the encoding
	checksumSize  = 4
)

// formatMagic opens every encoding.
var formatMagic = [4]byte{'C', 'K', 'O', 'O'}

// Header field offsets; FORMAT.md has the table. Integers are little-endian.
const (
	offVersion   = 4  // uint16
	offLayout    = 6  // uint8
	offBits      = 7  // uint8, fingerprint bits
	offSlots     = 8  // uint8, slots per bucket
	offKind      = 9  // uint8, key family
	offReserved1 = 10 // 6 zero bytes
	offBuckets   = 16 // uint64
	offCount     = 24 // uint64
	offCapacity  = 32 // uint64
	offSeed      = 40 // uint64
	offMaxKicks  = 48 // uint32
	offReserved2 = 52 // 4 zero bytes
	offRNG       = 56 // uint64, displacement PRNG state
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is the decoded fixed part of an encoding.
type header struct {
	layout   Layout
	f        uint
	kind     keyKind // the key family
	m        uint64
	count    uint64
	capacity uint64
	seed     uint64
	maxKicks uint64
	rng      uint64
}

// tableSize is the size of the table region of the encoding, padding included.
func (h *header) tableSize() uint64 { return tableBytes(h.m, bucketBits(h.layout, h.f)) }

// encodedSize is the size of the whole encoding.
func (h *header) encodedSize() uint64 { return headerSize + h.tableSize() + checksumSize }

func (h *header) put(b *[headerSize]byte) {
	le := binary.LittleEndian
	*b = [headerSize]byte{}
	copy(b[:], formatMagic[:])
	le.PutUint16(b[offVersion:], formatVersion)
	b[offLayout] = byte(h.layout)
	b[offBits] = byte(h.f)
	b[offSlots] = slotsPerBucket
	b[offKind] = byte(h.kind)
	le.PutUint64(b[offBuckets:], h.m)
	le.PutUint64(b[offCount:], h.count)
	le.PutUint64(b[offCapacity:], h.capacity)
	le.PutUint64(b[offSeed:], h.seed)
	le.PutUint32(b[offMaxKicks:], uint32(h.maxKicks))
	le.PutUint64(b[offRNG:], h.rng)
}

func formatErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// checkVersion checks the magic and the version, the part of the header every
// format version shares. b holds at least 6 bytes.
func checkVersion(b []byte) error {
	if [4]byte(b) != formatMagic {
		return formatErr(ErrCorrupt, "bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[offVersion:]); v != formatVersion {
		return formatErr(ErrUnsupportedVersion, "version %d, this package reads %d", v, formatVersion)
	}
	return nil
}

// parseHeader checks the header at the start of b: magic, version, then
// every parameter, without looking at anything past the header.
func parseHeader(b []byte) (header, error) {
	var h header
	if len(b) < offVersion+2 {
		if len(b) < len(formatMagic) && string(b) != string(formatMagic[:len(b)]) {
			return h, formatErr(ErrCorrupt, "bad magic %q", b)
		}
		return h, formatErr(ErrCorrupt, "truncated: %d bytes, the header has %d", len(b), headerSize)
	}
	if err := checkVersion(b); err != nil {
		return h, err
	}
	if len(b) < headerSize {
		return h, formatErr(ErrCorrupt, "truncated: %d bytes, the header has %d", len(b), headerSize)
	}
	le := binary.LittleEndian
	h = header{
		layout:   Layout(b[offLayout]),
		f:        uint(b[offBits]),
		kind:     keyKind(b[offKind]),
		m:        le.Uint64(b[offBuckets:]),
		count:    le.Uint64(b[offCount:]),
		capacity: le.Uint64(b[offCapacity:]),
		seed:     le.Uint64(b[offSeed:]),
		maxKicks: uint64(le.Uint32(b[offMaxKicks:])),
		rng:      le.Uint64(b[offRNG:]),
	}
	switch {
	case h.layout > SemiSorted:
		return h, formatErr(ErrCorrupt, "unknown layout %d", h.layout)
	case h.f < minFingerprintBits || h.f > maxFingerprintBits:
		return h, formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", h.f, minFingerprintBits, maxFingerprintBits)
	case b[offSlots] != slotsPerBucket:
		return h, formatErr(ErrCorrupt, "%d slots per bucket, want %d", b[offSlots], slotsPerBucket)
	case h.kind != h.kind.family() || h.kind == kindInvalid:
		return h, formatErr(ErrCorrupt, "unknown key kind %d", h.kind)
	case !allZero(b[offReserved1:offBuckets]) || !allZero(b[offReserved2:offRNG]):
		return h, formatErr(ErrCorrupt, "reserved header bytes are not zero")
	case h.m < 2 || h.m%2 != 0 || h.m > maxBuckets:
		return h, formatErr(ErrCorrupt, "bucket count %d is not even in 2..%d", h.m, uint64(maxBuckets))
	case h.count > h.m*slotsPerBucket:
		return h, formatErr(ErrCorrupt, "item count %d exceeds the %d slots", h.count, h.m*slotsPerBucket)
	case h.capacity == 0 || h.capacity > math.MaxInt64:
		return h, formatErr(ErrCorrupt, "capacity %d not in 1..%d", h.capacity, int64(math.MaxInt64))
	case h.capacity > h.m*slotsPerBucket: // New never gives a filter fewer slots than its capacity
		return h, formatErr(ErrCorrupt, "capacity %d exceeds the %d slots", h.capacity, h.m*slotsPerBucket)
	case h.seed == 0:
		return h, formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case h.maxKicks == 0 || h.maxKicks > MaxMaxKicks:
		return h, formatErr(ErrCorrupt, "max kicks %d not in 1..%d", h.maxKicks, MaxMaxKicks)
	}
	return h, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeLevel says how much of an encoding decode checks.
type decodeLevel uint8

const (
	checkHeader decodeLevel = iota // header, length and compatibility
	checkAll                       // also the checksum and the table's structure
)

// decode checks the encoding data, which must be exactly one filter of key
// family kind, and returns its header and a table whose data aliases data.
// It allocates nothing (but the error): every size is checked against
// len(data) first.
func decode(data []byte, kind keyKind, level decodeLevel) (header, table, error) {
	h, err := parseHeader(data)
	if err != nil {
		return h, table{}, err
	}
	if size := h.encodedSize(); uint64(len(data)) != size {
		return h, table{}, formatErr(ErrCorrupt, "%d bytes, the header describes %d", len(data), size)
	}
	end := len(data) - checksumSize
	if level == checkAll {
		want := binary.LittleEndian.Uint32(data[end:])
		if got := crc32.Checksum(data[:end], castagnoli); got != want {
			return h, table{}, formatErr(ErrChecksum, "CRC-32C %08x, stored %08x", got, want)
		}
	}
	switch {
	case h.kind != kind.family():
		return h, table{}, formatErr(ErrIncompatible, "filter of %s keys read as %s keys", h.kind.familyName(), kind.family().familyName())
	case h.capacity > math.MaxInt || h.m*slotsPerBucket > math.MaxInt:
		return h, table{}, formatErr(ErrIncompatible, "capacity %d or %d slots too large for this platform", h.capacity, h.m*slotsPerBucket)
	}
	t := tableShape(h.m, h.f, h.layout)
	t.data = data[headerSize:end:end]
	if level == checkAll {
		if err := t.checkStructure(h.count); err != nil {
			return h, table{}, err
		}
	}
	return h, t, nil
}

// checkStructure checks what the checksum cannot: that the table could have
// been written by this package. The padding is zero, every bucket is validly
// encoded, and count slots are occupied. The buckets end on a byte boundary
// (m is even and a bucket is a multiple of 4 bits), so no last byte has
// unused bits to check.
func (t *table) checkStructure(count uint64) error {
	if !allZero(t.data[len(t.data)-tablePad:]) {
		return formatErr(ErrCorrupt, "table padding is not zero")
	}
	var occupied uint64
	for i := range t.m {
		if !t.validBucket(i) {
			return formatErr(ErrCorrupt, "bucket %d is not validly encoded", i)
		}
		s := t.bucketSlots(i)
		for k := range s {
			if s[k] != 0 {
				occupied++
			}
		}
	}
	if occupied != count {
		return formatErr(ErrCorrupt, "item count %d, but %d slots are occupied", count, occupied)
	}
	return nil
}

// familyName names a key family in errors.
func (k keyKind) familyName() string {
	switch k {
	case kindInt:
		return "integer"
	case kindFloat:
		return "float"
	case kindBytes:
		return "string or []byte"
	}
	return fmt.Sprintf("kind %d", k)
}

// errZeroFilter is returned by the encoding methods of a zero Filter.
var errZeroFilter = formatErr(ErrIncompatible, "the zero Filter holds no table; make filters with New or UnmarshalBinary")

// header describes the filter for its encoding.
func (f *Filter[T]) header() header {
	t := &f.c.t
	return header{
		layout:   t.layout,
		f:        t.f,
		kind:     kindOf[T]().family(),
		m:        t.m,
		count:    uint64(f.c.count),
		capacity: uint64(f.c.capacity),
		seed:     f.c.h.seed,
		maxKicks: uint64(f.c.maxKicks),
		rng:      f.c.rng,
	}
}

// EncodedSize is the length of the filter's encoding: what AppendBinary
// appends and WriteTo writes. It is 0 for the zero Filter.
func (f *Filter[T]) EncodedSize() int {
	if f.c.t.data == nil {
		return 0
	}
	h := f.header()
	return int(h.encodedSize())
}

// AppendBinary appends the filter's encoding (see FORMAT.md) to b and
// returns the extended slice. It allocates nothing when b has EncodedSize
// bytes of spare capacity. The encoding depends only on the filter's
// contents and history, not on the host: the same seed and operations give
// the same bytes.
func (f *Filter[T]) AppendBinary(b []byte) ([]byte, error) {
	if f.c.t.data == nil {
		return b, errZeroFilter
	}
	h := f.header()
	var hb [headerSize]byte
	h.put(&hb)
	b = slices.Grow(b, int(h.encodedSize()))
	start := len(b)
	b = append(b, hb[:]...)
	b = append(b, f.c.t.data...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli)), nil
}

// MarshalBinary returns the filter's encoding; see AppendBinary.
func (f *Filter[T]) MarshalBinary() ([]byte, error) {
	if f.c.t.data == nil {
		return nil, errZeroFilter
	}
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, the table straight from the
// filter's memory, and returns the number of bytes written.
func (f *Filter[T]) WriteTo(w io.Writer) (int64, error) {
	if f.c.t.data == nil {
		return 0, errZeroFilter
	}
	h := f.header()
	var hb [headerSize]byte
	h.put(&hb)
	var sum [checksumSize]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Update(crc32.Checksum(hb[:], castagnoli), castagnoli, f.c.t.data))
	var n int64
	for _, p := range [][]byte{hb[:], f.c.t.data, sum[:]} {
		k, err := w.Write(p)
		n += int64(k)
		if err == nil && k < len(p) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// UnmarshalBinary replaces the filter with the one encoded in data, which
// must be exactly one encoding as written by AppendBinary, MarshalBinary or
// WriteTo, of a filter whose keys hash like T's (all integer types hash
// alike, both float types, and string with []byte). The filter copies the
// table and keeps no reference to data. It continues exactly as the encoded
// filter would have: same answers, same Capacity and MaxKicks, same
// displacement order.
//
// Errors wrap ErrCorrupt, ErrChecksum, ErrUnsupportedVersion or
// ErrIncompatible (another key family, or a filter too large for this
// platform); the filter is then unchanged. Decoding checks every size
// against len(data) before it allocates anything and never panics.
//
// UnmarshalBinary and ReadFrom work on a zero Filter, new(Filter[T]); no
// other method does.
func (f *Filter[T]) UnmarshalBinary(data []byte) error {
	h, t, err := decode(data, kindOf[T](), checkAll)
	if err != nil {
		return err
	}
	d := newTableData(uint64(len(t.data)))
	copy(d, t.data)
	t.data = d
	f.load(&h, t)
	return nil
}

// readChunk is the first buffer ReadFrom reads the table into; it doubles as
// data arrives, so a header that claims a huge table costs memory only in
// proportion to the bytes that actually follow it.
const readChunk = 32<<10 - headerSize

// ReadFrom replaces the filter with one read from r: exactly one encoding,
// as WriteTo writes it. It reads the header first, checks it, then reads
// exactly the rest, never past the end of the encoding, so r may hold more
// data after it (such as further filters). It returns the number of bytes
// read. The checks and errors are those of UnmarshalBinary; an error that
// wraps ErrCorrupt and io.EOF means r held no byte at all, one that wraps
// io.ErrUnexpectedEOF a truncated encoding. After an error the filter is
// unchanged.
func (f *Filter[T]) ReadFrom(r io.Reader) (int64, error) {
	var hb [headerSize]byte
	// The magic and version first: another version's header may be shorter.
	n, err := io.ReadFull(r, hb[:offVersion+2])
	if err == nil {
		if err = checkVersion(hb[:]); err != nil {
			return int64(n), err
		}
		var k int
		k, err = io.ReadFull(r, hb[n:])
		n += k
	}
	if err != nil {
		return int64(n), readErr(err)
	}
	h, err := parseHeader(hb[:])
	if err != nil {
		return int64(n), err
	}
	size := h.encodedSize()
	if size > math.MaxInt {
		return int64(n), formatErr(ErrIncompatible, "a %d-byte filter is too large for this platform", size)
	}
	buf := append(make([]byte, 0, min(int(size), headerSize+readChunk)), hb[:]...)
	for len(buf) < int(size) {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(int(size)-len(buf), len(buf)))
		}
		k, err := io.ReadFull(r, buf[len(buf):min(cap(buf), int(size))])
		buf = buf[:len(buf)+k]
		if err != nil {
			return int64(len(buf)), readErr(err)
		}
	}
	h, t, err := decode(buf, kindOf[T](), checkAll)
	if err != nil {
		return int64(len(buf)), err
	}
	// The table keeps aliasing buf, which nothing else holds. Its pages are
	// already touched: the advice lets khugepaged merge them later.
	adviseHugePages(t.data)
	f.load(&h, t)
	return int64(len(buf)), nil
}

// readErr wraps an error of ReadFrom's reader.
func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("cuckoo: reading a filter: %w", err)
}

// load makes f the filter that h and t describe.
func (f *Filter[T]) load(h *header, t table) {
	f.c = newCore(decodedReader[T](h, t), int(h.maxKicks))
	f.c.rng = h.rng
}

// decodedReader is the reader of a decoded filter of keys of type T.
func decodedReader[T Hashable](h *header, t table) reader {
	return reader{t: t, h: newHasher(h.seed), kind: kindOf[T](), count: int(h.count), capacity: int(h.capacity)}
}
