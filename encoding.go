package cuckoo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"
)

// The binary format (FORMAT.md): a 128-byte header (64 would not hold a
// growable keyed filter's; 128 aligns the table to 64 bytes), the table as
// in memory, padded, for a Filter's loads in a View, and a CRC-32C of both.

const (
	// formatVersion is the one version with a header that the package
	// writes and reads; FORMAT.md, "Versions", has the earlier ones.
	formatVersion = 5
	headerSize    = 128
	checksumSize  = 4
)

var formatMagic = [4]byte{'C', 'K', 'O', 'O'}

// Header field offsets; FORMAT.md has the table. Integers are little-endian.
const (
	offVersion     = 4  // uint16
	offLayout      = 6  // uint8
	offBits        = 7  // uint8, fingerprint bits
	offSlots       = 8  // uint8, slots per bucket
	offKind        = 9  // uint8, key family
	offFlags       = 10 // uint8, flags: flagKeyed, the rest zero
	offDoublings   = 11 // uint8, doublings in all (g)
	offStage       = 12 // uint8, doublings done (k)
	offGenerations = 13 // uint16, generations (G): 0 for keys that never expire, else 1..MaxGenerations
	offReserved1   = 15 // 1 zero byte
	offBuckets     = 16 // uint64
	offCount       = 24 // uint64
	offCapacity    = 32 // uint64
	offSeed        = 40 // uint64
	offMaxKicks    = 48 // uint32
	offGeneration  = 52 // uint32, the current generation: 0..G-1, 0 for keys that never expire
	offRNG         = 56 // uint64, displacement PRNG state
	offMaxCapacity = 64 // uint64
	offKeyCheck    = 72 // uint64: a keyed filter's key check value (keyed.go), else 0
	offWait        = 80 // uint16, calls of Advance before a grown expiring filter may halve (shrink.go): 0..G
	offReserved2   = 82 // 46 zero bytes

	flagKeyed = 1 // the filter hashes with Config.Key
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is an encoding's header, or a compact one's trailer and length.
type header struct {
	compact, keyed               bool
	layout                       Layout
	kind                         keyKind // the key family
	f, g, k                      uint    // fingerprint bits, doublings in all and done (growth.go)
	gens, gen                    uint    // Config.Generations (0: keys never expire), the current one (generations.go)
	m                            uint64  // buckets: m0 << k
	count, capacity, maxCapacity uint64
	seed, rng, maxKicks          uint64
	keyCheck                     uint64 // keyed.go
	wait                         uint   // core.wait: 0..G, 0 unless keys expire in a table that can halve or grow
}

// shape is the encoded table without data.
func (h *header) shape() table {
	t := tableShape(h.m>>h.k, h.f, h.g, h.k, h.layout, h.gens)
	t.setGen(h.gen)
	return t
}

// size is the length of the header, a compact encoding's version byte.
func (h *header) size() uint64 {
	if h.compact {
		return 1
	}
	return headerSize
}

// tableSize is the size of the table, padding (a compact trailer) included.
func (h *header) tableSize() uint64 {
	bbits := bucketBits(h.layout, h.f+h.g-h.k+genBits(h.gens))
	if h.compact {
		n := h.m*uint64(bbits)/8 + compactFields + countBytes(h.count, h.seed != DefaultSeed, uint64(shapeOf(h.layout, h.f).reach))
		if h.seed != DefaultSeed {
			n += compactSeedLen
		}
		return n
	}
	return tableBytes(h.m, bbits)
}

func (h *header) encodedSize() uint64 {
	if h.compact {
		return 1 + h.tableSize()
	}
	return headerSize + h.tableSize() + checksumSize
}

// put writes the header of an encoding with a header into b.
func (h *header) put(b *[headerSize]byte) {
	le := binary.LittleEndian
	*b = [headerSize]byte{}
	copy(b[:], formatMagic[:])
	le.PutUint16(b[offVersion:], formatVersion)
	b[offLayout] = byte(h.layout)
	b[offBits] = byte(h.f)
	b[offSlots] = slotsPerBucket
	b[offKind] = byte(h.kind)
	b[offDoublings], b[offStage] = byte(h.g), byte(h.k)
	le.PutUint64(b[offBuckets:], h.m)
	le.PutUint64(b[offCount:], h.count)
	le.PutUint64(b[offCapacity:], h.capacity)
	le.PutUint64(b[offSeed:], h.seed)
	le.PutUint32(b[offMaxKicks:], uint32(h.maxKicks))
	le.PutUint64(b[offRNG:], h.rng)
	le.PutUint64(b[offMaxCapacity:], h.maxCapacity)
	le.PutUint16(b[offGenerations:], uint16(h.gens))
	le.PutUint32(b[offGeneration:], uint32(h.gen))
	le.PutUint16(b[offWait:], uint16(h.wait))
	if h.keyed {
		b[offFlags] = flagKeyed
		le.PutUint64(b[offKeyCheck:], h.keyCheck)
	}
}

// checkVersion checks the magic and version, b[:6] in every header version.
func checkVersion(b []byte) error {
	if [4]byte(b) != formatMagic {
		return formatErr(ErrCorrupt, "bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[offVersion:]); v != formatVersion {
		return formatErr(ErrUnsupportedVersion, "format version %d; this package reads version %d", v, formatVersion)
	}
	return nil
}

// checkPrefix checks the magic and version as far as b holds them: nil
// for bytes that may begin an encoding with a header, empty b included.
func checkPrefix(b []byte) error {
	if len(b) >= offVersion+2 {
		return checkVersion(b)
	}
	if m := b[:min(len(b), len(formatMagic))]; string(m) != string(formatMagic[:len(m)]) {
		return formatErr(ErrCorrupt, "bad magic %q", m)
	}
	return nil
}

// parseHeader checks the header at the start of b: magic, version, then
// every parameter, reading nothing past it.
func parseHeader(b []byte) (header, error) {
	var h header
	if err := checkPrefix(b); err != nil {
		return h, err
	}
	if len(b) < headerSize {
		return h, formatErr(ErrCorrupt, "truncated: %s, the header has %d", plural(len(b), "byte"), headerSize)
	}
	le := binary.LittleEndian
	h = header{
		layout: Layout(b[offLayout]), f: uint(b[offBits]), kind: keyKind(b[offKind]), m: le.Uint64(b[offBuckets:]),
		g: uint(b[offDoublings]), k: uint(b[offStage]),
		gens: uint(le.Uint16(b[offGenerations:])), gen: uint(le.Uint32(b[offGeneration:])),
		count: le.Uint64(b[offCount:]), capacity: le.Uint64(b[offCapacity:]), maxCapacity: le.Uint64(b[offMaxCapacity:]),
		seed: le.Uint64(b[offSeed:]), rng: le.Uint64(b[offRNG:]), maxKicks: uint64(le.Uint32(b[offMaxKicks:])),
		keyed: b[offFlags] == flagKeyed, keyCheck: le.Uint64(b[offKeyCheck:]), wait: uint(le.Uint16(b[offWait:])),
	}
	switch {
	case !h.layout.valid():
		return h, formatErr(ErrCorrupt, "unknown layout %d", h.layout)
	case h.f < minFingerprintBits || h.f > maxFingerprintBits:
		return h, formatErr(ErrCorrupt, "fingerprint bits %d not in %d..%d", h.f, minFingerprintBits, maxFingerprintBits)
	case h.gens > MaxGenerations:
		return h, formatErr(ErrCorrupt, "%d generations, more than %d", h.gens, MaxGenerations)
	case h.gens == 0 && h.gen != 0:
		return h, formatErr(ErrCorrupt, "current generation %d in a filter whose keys never expire", h.gen)
	case h.gens != 0 && h.gen >= h.gens:
		return h, formatErr(ErrCorrupt, "current generation %d of %s", h.gen, plural(h.gens, "generation"))
	case h.k > h.g:
		return h, formatErr(ErrCorrupt, "stage %d past the filter's last, %d", h.k, h.g)
	case h.wait > h.gens || h.wait != 0 && h.g == 0:
		return h, formatErr(ErrCorrupt, "%s before a halving, in a filter of %s and %s", plural(h.wait, "call"), plural(h.g, "doubling"), plural(h.gens, "generation"))
	case h.f+h.g+genBits(h.gens) > maxFingerprintBits:
		return h, formatErr(ErrCorrupt, "%d-bit fingerprints with %s and %s: slots would exceed %d bits", h.f, plural(h.g, "doubling"), plural(h.gens, "generation"), maxFingerprintBits)
	case b[offSlots] != slotsPerBucket:
		return h, formatErr(ErrCorrupt, "%s per bucket, want %d", plural(b[offSlots], "slot"), slotsPerBucket)
	case h.kind != h.kind.family() || h.kind == kindInvalid:
		return h, formatErr(ErrCorrupt, "unknown key kind %d", h.kind)
	case b[offFlags]&^flagKeyed != 0 || !h.keyed && h.keyCheck != 0 ||
		!allZero(b[offReserved1:offBuckets]) || !allZero(b[offReserved2:headerSize]):
		return h, formatErr(ErrCorrupt, "reserved header bytes are not zero")
	case h.m < 2 || h.m%2 != 0 || h.m > maxBuckets:
		return h, formatErr(ErrCorrupt, "bucket count %d: it must be even and in 2..%d", h.m, uint64(maxBuckets))
	case h.m>>h.k < 2 || h.m>>h.k%2 != 0 || h.m>>h.k<<h.k != h.m:
		return h, formatErr(ErrCorrupt, "bucket count %d is not an even count doubled %s", h.m, plural(h.k, "time"))
	case h.count > h.m*slotsPerBucket:
		return h, formatErr(ErrCorrupt, "item count %d exceeds the %d slots", h.count, h.m*slotsPerBucket)
	case h.capacity == 0 || h.capacity > math.MaxInt64:
		return h, formatErr(ErrCorrupt, "capacity %d not in 1..%d", h.capacity, int64(math.MaxInt64))
	case h.capacity > h.m*slotsPerBucket: // New never gives a filter fewer slots than its capacity
		return h, formatErr(ErrCorrupt, "capacity %d exceeds the %d slots", h.capacity, h.m*slotsPerBucket)
	case h.maxCapacity < h.capacity || h.maxCapacity > h.m>>h.k<<h.g*slotsPerBucket:
		return h, formatErr(ErrCorrupt, "max capacity %d not in %d..%d, the slots when grown", h.maxCapacity, h.capacity, h.m>>h.k<<h.g*slotsPerBucket)
	case h.seed == 0:
		return h, formatErr(ErrCorrupt, "seed 0 (a filter's seed is never 0)")
	case h.maxKicks == 0 || h.maxKicks > MaxMaxKicks:
		return h, formatErr(ErrCorrupt, "max kicks %d not in 1..%d", h.maxKicks, MaxMaxKicks)
	}
	return h, nil
}

// EncodedLen returns the length n of the encoding with a header that starts
// at data, from its header alone, so that filters stored back to back open
// without an index: NewView(data[:n]). data may hold more bytes after the
// encoding; if it holds fewer, EncodedLen returns n and an error wrapping
// ErrCorrupt and io.ErrUnexpectedEOF. A header cut short, fewer than its 128
// bytes whose magic and version are right as far as they go, gives 0 and an
// error wrapping the same two: a reader of a stream reads more and calls
// again. Empty data is such a cut (only the caller knows whether its stream
// has ended). It checks the header as NewView does, with its errors, and
// reads nothing past it; a length too large for an int gives an error
// wrapping ErrIncompatible. It never panics and allocates nothing but an
// error.
func EncodedLen(data []byte) (int, error) {
	if len(data) > 0 && isCompact(data[0]) {
		return 0, compactLenErr(data[0])
	}
	if len(data) < headerSize && checkPrefix(data) == nil {
		return 0, fmt.Errorf("%w: truncated: %s of a %d-byte header: %w", ErrCorrupt, plural(len(data), "byte"), headerSize, io.ErrUnexpectedEOF)
	}
	h, err := parseHeader(data)
	if err != nil {
		return 0, err
	}
	size := h.encodedSize()
	if size > math.MaxInt {
		return 0, formatErr(ErrIncompatible, "a %d-byte filter is too large for this platform", size)
	}
	if uint64(len(data)) < size {
		return int(size), fmt.Errorf("%w: truncated: %d bytes of a %d-byte encoding: %w", ErrCorrupt, len(data), size, io.ErrUnexpectedEOF)
	}
	return int(size), nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

type decodeLevel uint8

const (
	checkHeader decodeLevel = iota // header, length and compatibility
	checkAll                       // also the checksum and the table's structure
)

// compactLenErr is EncodedLen's and ReadFrom's error for bytes that start
// with v, a compact version byte: only its container knows its length.
func compactLenErr(v byte) error {
	if err := checkCompactVersion(v); err != nil {
		return err
	}
	return formatErr(ErrIncompatible, "a compact encoding does not record its length: read it whole, then UnmarshalBinary or NewView")
}

// decode checks that data is exactly one encoding of a filter of key family
// kind, keyed with key (or nil), and returns its header and a table aliasing
// data, allocating nothing but an error.
func decode(data []byte, kind keyKind, level decodeLevel, key *sipHasher) (header, table, error) {
	var h header
	var err error
	if len(data) > 0 && isCompact(data[0]) {
		// Decoded, a compact encoding has the Capacity of its table.
		if h, err = compactHeader(data); err == nil {
			h.capacity = uint64(capacityFor(h.m, h.f))
			h.maxCapacity = h.capacity
		}
	} else {
		h, err = parseHeader(data)
	}
	if err != nil {
		return h, table{}, err
	}
	if size := h.encodedSize(); uint64(len(data)) != size {
		return h, table{}, formatErr(ErrCorrupt, "%d bytes, the header describes %d", len(data), size)
	}
	end := len(data)
	if !h.compact {
		end -= checksumSize
	}
	if level == checkAll && !h.compact {
		want := binary.LittleEndian.Uint32(data[end:])
		if got := crc32.Checksum(data[:end], castagnoli); got != want {
			return h, table{}, formatErr(ErrChecksum, "CRC-32C %08x, stored %08x", got, want)
		}
	}
	switch {
	case kind != kindHash && h.kind != kind.family():
		return h, table{}, errFamily(h.kind, kind)
	case h.capacity > math.MaxInt || h.m*slotsPerBucket > math.MaxInt:
		return h, table{}, formatErr(ErrIncompatible, "capacity %d or %d slots too large for this platform", h.capacity, h.m*slotsPerBucket)
	case h.keyed && key == nil:
		return h, table{}, formatErr(ErrIncompatible, "a keyed filter: decode it into a Filter made with its Config.Key, or open it with NewKeyedView")
	case !h.keyed && key != nil:
		return h, table{}, formatErr(ErrIncompatible, "an unkeyed filter, read with a key")
	case h.keyed && key.string(keyCheckMessage) != h.keyCheck:
		return h, table{}, formatErr(ErrIncompatible, "a keyed filter, read with another key")
	}
	t := h.shape()
	t.data = data[h.size():end:end]
	if level == checkAll {
		if err := t.checkStructure(h.count, !h.compact); err != nil {
			return h, table{}, err
		}
	}
	return h, t, nil
}

// errFamily is the error for an encoding of family enc read as keys of kind.
func errFamily(enc, kind keyKind) error {
	return formatErr(ErrIncompatible, "filter of %s keys read as %s keys", enc.familyName(), kind.family().familyName())
}

// checkStructure checks what the checksum cannot, that this package could
// have written the table: zero padding (if padded; it starts on a byte, as
// m is even), canonical buckets, and count occupied slots, each with a
// fingerprint (not 0: a growable table's doublings would turn a slot of
// layer bits alone into an empty one) of one of the table's generations.
func (t *table) checkStructure(count uint64, padded bool) error {
	if padded && !allZero(t.data[len(t.data)-tablePad:]) {
		return formatErr(ErrCorrupt, "table padding is not zero")
	}
	var occupied uint64
	for i := range t.m {
		if !t.validBucket(i) {
			return formatErr(ErrCorrupt, "bucket %d is not validly encoded", i)
		}
		for _, v := range t.bucketSlots(i) {
			if v == 0 {
				continue
			}
			occupied++
			if v&uint32(t.fpMask) == 0 { // layer or generation bits over no fingerprint
				return formatErr(ErrCorrupt, "bucket %d holds fingerprint 0 (slot %#x)", i, v)
			}
			if t.genBits != 0 && v>>(t.kbits&31) >= uint32(t.gens) {
				return formatErr(ErrCorrupt, "bucket %d holds fingerprint %d of generation %d, of %s",
					i, v&uint32(t.fpMask), v>>(t.kbits&31), plural(t.gens, "generation"))
			}
		}
	}
	if occupied != count {
		return formatErr(ErrCorrupt, "item count %d, but the table holds %s", count, plural(occupied, "fingerprint"))
	}
	return nil
}

var familyNames = [...]string{kindInt: "integer", kindFloat: "float", kindBytes: "string/[]byte/[N]byte"}

func (k keyKind) familyName() string {
	if k != kindInvalid && int(k) < len(familyNames) {
		return familyNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

func (f *Filter[T]) header() header {
	return encodingHeader(&f.c.reader, kindOf[T]().family(), f.c.maxKicks, f.c.rng)
}

// encodingHeader is the header of r's filter of keys of the given family.
func encodingHeader(r *reader, family keyKind, maxKicks int, rng uint64) header {
	t := &r.t
	return header{
		layout: t.layout, f: t.fbits, kind: family, m: t.m, g: t.g, k: t.k, gens: t.gens, gen: t.gen(),
		count: uint64(r.count), capacity: uint64(r.capacity), maxCapacity: uint64(r.maxCapacity),
		seed: r.h.seed, rng: rng, maxKicks: uint64(maxKicks), keyed: r.h.sip() != nil, keyCheck: r.keyCheck(),
		wait: uint(r.wait),
	}
}

// EncodedSize is the length of what AppendBinary appends and WriteTo
// writes; 0 for the zero Filter.
func (f *Filter[T]) EncodedSize() int {
	if f.c.t.data == nil {
		return 0
	}
	h := f.header()
	return int(h.encodedSize())
}

// AppendBinary appends the filter's encoding (FORMAT.md) to b, allocating
// nothing when b has EncodedSize bytes to spare. The same seed and
// operations give the same bytes on every host.
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

// UnmarshalBinary replaces the filter with the one encoded in data, exactly
// one encoding (either kind, FORMAT.md) of a filter whose keys hash like T's
// (see Hashable). It copies the table, keeping no reference to data, and
// continues exactly as the encoded filter would have: same answers,
// Capacity, MaxKicks, displacement order and generations. Errors wrap
// ErrCorrupt, ErrChecksum, ErrUnsupportedVersion or ErrIncompatible and
// leave the filter unchanged; sizes are checked against len(data) before
// anything is allocated, and nothing panics. It works on a zero Filter.
func (f *Filter[T]) UnmarshalBinary(data []byte) error { return f.unmarshal(data, false, f.c.h.sip()) }

// unmarshal makes f the filter in data, keyed with key (or nil), aliasing
// data if owned (nothing else holds it) and not compact, else copying it.
func (f *Filter[T]) unmarshal(data []byte, owned bool, key *sipHasher) error {
	h, t, err := decode(data, kindOf[T](), checkAll, key)
	if err != nil {
		return err
	}
	if owned && !h.compact {
		// Its pages are already touched: the advice lets khugepaged merge them later.
		adviseHugePages(t.data)
	} else {
		d := newTableData(tableBytes(t.m, t.bbits))
		copy(d, t.data[:t.m*uint64(t.bbits)/8])
		t.data = d
	}
	f.c = newCore(decodedReader[T](&h, t, key), int(h.maxKicks))
	f.c.rng = h.rng
	return nil
}

// readChunk is the first buffer ReadFrom reads into; it doubles as data
// arrives, so a header claiming a huge table costs only what follows it.
const readChunk = 32<<10 - headerSize

// ReadFrom replaces the filter with one encoding read from r, as WriteTo
// wrote it, never reading past its end, and returns the bytes read; checks
// and errors (the filter unchanged) are UnmarshalBinary's. At a clean end of
// stream, before an encoding's first byte, it returns 0 and io.EOF itself
// (or r's error wrapping it), so a loop over filters written back to back
// stops there; a stream that ends inside one gives an error wrapping
// ErrCorrupt and io.ErrUnexpectedEOF, never io.EOF.
func (f *Filter[T]) ReadFrom(r io.Reader) (int64, error) {
	buf, err := readEncoding(r)
	if err == nil {
		err = f.unmarshal(buf, true, f.c.h.sip())
	}
	return int64(len(buf)), err
}

// readEncoding reads one encoding with a header from r, never past its end,
// checking the magic and version, then the header, before it reads on.
func readEncoding(r io.Reader) ([]byte, error) {
	var head [headerSize]byte
	n, err := io.ReadFull(r, head[:offVersion+2])
	if err == nil {
		if isCompact(head[0]) {
			return head[:n], compactLenErr(head[0])
		}
		if err = checkVersion(head[:]); err != nil {
			return head[:n], err
		}
		var k int
		k, err = io.ReadFull(r, head[n:])
		n += k
	}
	if err != nil {
		return head[:n], readErr(err, n > 0)
	}
	hb := head[:n]
	h, err := parseHeader(hb)
	if err != nil {
		return hb, err
	}
	size := h.encodedSize()
	if size > math.MaxInt {
		return hb, formatErr(ErrIncompatible, "a %d-byte filter is too large for this platform", size)
	}
	buf := append(make([]byte, 0, min(int(size), len(hb)+readChunk)), hb...)
	for len(buf) < int(size) {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(int(size)-len(buf), len(buf)))
		}
		k, err := io.ReadFull(r, buf[len(buf):min(cap(buf), int(size))])
		buf = buf[:len(buf)+k]
		if err != nil {
			return buf, readErr(err, true)
		}
	}
	return buf, nil
}

// readErr wraps an error of ReadFrom's reader: only a stream that held no
// byte (!started; io.ReadFull says io.EOF for any empty read) ends cleanly,
// its error returned as it is.
func readErr(err error, started bool) error {
	switch {
	case !started && errors.Is(err, io.EOF):
		return err
	case started && err == io.EOF:
		err = io.ErrUnexpectedEOF
	case started && errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		// The reader's own wrapping of io.EOF: keep its text, not its identity.
		return fmt.Errorf("%w: truncated: %w (%v)", ErrCorrupt, io.ErrUnexpectedEOF, err)
	case !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("cuckoo: reading a filter: %w", err)
	}
	return fmt.Errorf("%w: truncated: %w", ErrCorrupt, err)
}

// decodedReader is the reader of a decoded filter, keyed with key (or nil).
func decodedReader[T Hashable](h *header, t table, key *sipHasher) reader {
	r := reader{t: t, h: newHasher(h.seed), kind: kindOf[T](), keys: keysOf(kindOf[T]()), count: int(h.count), capacity: int(h.capacity),
		maxCapacity: int(h.maxCapacity), wait: int(h.wait)}
	if key != nil {
		r.h.secret, r.kind = keyRef{unsafe.Pointer(key)}, r.kind|kindKeyed
		r.keys = keysOf(r.kind)
	}
	return r
}
