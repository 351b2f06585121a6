package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestEncodingRoundTrip(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for f := minFingerprintBits; f <= maxFingerprintBits; f++ {
			t.Run("f"+strconv.Itoa(f), func(t *testing.T) {
				cfg := Config{Capacity: 400, FingerprintBits: f, Layout: layout, Seed: uint64(f), MaxKicks: 100 + f}
				testRoundTrip(t, cfg, intKey)
			})
		}
		t.Run("string", func(t *testing.T) {
			testRoundTrip(t, Config{Capacity: 3000, Layout: layout}, stringKey)
		})
		t.Run("bytes", func(t *testing.T) {
			testRoundTrip(t, Config{Capacity: 300, FingerprintBits: 9, Layout: layout, MaxKicks: 2000},
				func(i int) []byte { return []byte(stringKey(i)) })
		})
		t.Run("float", func(t *testing.T) {
			testRoundTrip(t, Config{Capacity: 300, FingerprintBits: 20, Layout: layout},
				func(i int) float64 { return float64(i) / 7 })
		})
		if !testing.Short() {
			t.Run("large", func(t *testing.T) {
				testRoundTrip(t, Config{Capacity: 300_000, FingerprintBits: 17, Layout: layout}, intKey)
			})
		}
		// Growable filters, grown part of the way, so that the
		// decoded filters must keep growing like the original.
		for _, f := range []int{4, 8, 13, 16, 20} {
			t.Run("growable/f"+strconv.Itoa(f), func(t *testing.T) {
				testRoundTrip(t, Config{Capacity: 50, MaxCapacity: 50 << 6, FingerprintBits: f, Layout: layout, Seed: 3}, intKey)
			})
		}
	})
}

// testRoundTrip encodes a filter every way, decodes it every way, and checks
// that the results answer like it and continue like it.
func testRoundTrip[T Hashable](t *testing.T, cfg Config, key func(int) T) {
	n := max(cfg.Capacity, cfg.MaxCapacity/5) // a growable filter grows a few times
	orig := builtFilter(t, cfg, n, key)
	if cfg.MaxCapacity > cfg.Capacity && (orig.c.t.k == 0 || orig.c.t.k == orig.c.t.g) {
		t.Fatalf("%+v: at stage %d of %d; the test wants one in between", cfg, orig.c.t.k, orig.c.t.g)
	}
	enc := mustMarshal(t, orig)
	if len(enc) != orig.EncodedSize() {
		t.Fatalf("encoding is %d bytes, EncodedSize %d", len(enc), orig.EncodedSize())
	}
	if app, err := orig.AppendBinary([]byte("prefix")); err != nil || !bytes.Equal(app[6:], enc) || string(app[:6]) != "prefix" {
		t.Fatalf("AppendBinary differs from MarshalBinary (%v)", err)
	}
	var w bytes.Buffer
	if k, err := orig.WriteTo(&w); err != nil || k != int64(len(enc)) || !bytes.Equal(w.Bytes(), enc) {
		t.Fatalf("WriteTo wrote %d bytes (%v), differing from MarshalBinary", k, err)
	}

	var dec, read Filter[T]
	if err := dec.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if k, err := read.ReadFrom(iotest.HalfReader(bytes.NewReader(enc))); err != nil || k != int64(len(enc)) {
		t.Fatalf("ReadFrom read %d of %d bytes: %v", k, len(enc), err)
	}
	view, err := NewView[T](enc)
	if err != nil {
		t.Fatal(err)
	}
	unverified, err := NewViewUnverified[T](enc)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]T, 0, 3*n)
	for i := range 3 * n { // the stored keys, the deleted ones, and absent ones
		keys = append(keys, key(i))
	}
	for _, q := range []querier[T]{&dec, &read, view, unverified} {
		checkSameAnswers(t, orig, q, keys)
	}
	for i := 1; i < n; i++ {
		if i%5 != 0 && !view.Contains(key(i)) {
			t.Fatalf("view lost key %d", i)
		}
	}
	if !bytes.Equal(mustMarshal(t, &dec), enc) || !bytes.Equal(mustMarshal(t, &read), enc) {
		t.Fatal("a decoded filter re-encodes differently")
	}

	// A decoded filter continues exactly like the original: same inserts,
	// same displacements, same failures, same bytes.
	// Inserts into the full filter fail (displacing, then undoing); after the
	// deletes they succeed again.
	extra := min(n, 2000)
	if testing.Short() {
		extra = min(n, 200)
	}
	cont := func(f *Filter[T]) []byte {
		for i := n; i < n+extra; i++ {
			_ = f.Insert(key(i))
		}
		for i := 1; i < n+extra; i += 3 {
			f.Delete(key(i))
		}
		for i := 2 * n; i < 2*n+extra; i++ {
			_ = f.Insert(key(i))
		}
		return mustMarshal(t, f)
	}
	want := cont(orig)
	clear(enc) // the decoded filters own their tables
	if !bytes.Equal(cont(&dec), want) || !bytes.Equal(cont(&read), want) {
		t.Fatal("a decoded filter continues differently from the original")
	}
}

func TestEncodingFamilies(t *testing.T) {
	ints := mustMarshal(t, builtFilter(t, Config{Capacity: 100}, 100, intKey))
	strs := mustMarshal(t, builtFilter(t, Config{Capacity: 100}, 100, stringKey))
	floats := mustMarshal(t, builtFilter(t, Config{Capacity: 100}, 100, func(i int) float32 { return float32(i) }))
	for _, c := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"int32<-uint64", nil, func() error { return new(Filter[int32]).UnmarshalBinary(ints) }},
		{"userID<-uint64", nil, func() error { return new(Filter[userID]).UnmarshalBinary(ints) }},
		{"[]byte<-string", nil, func() error { return new(Filter[[]byte]).UnmarshalBinary(strs) }},
		{"float64<-float32", nil, func() error { return new(Filter[float64]).UnmarshalBinary(floats) }},
		{"string<-uint64", ErrIncompatible, func() error { return new(Filter[string]).UnmarshalBinary(ints) }},
		{"uint64<-string", ErrIncompatible, func() error { _, err := NewView[uint64](strs); return err }},
		{"float64<-uint64", ErrIncompatible, func() error { _, err := NewViewUnverified[float64](ints); return err }},
		{"int<-float32", ErrIncompatible, func() error { _, err := new(Filter[int]).ReadFrom(bytes.NewReader(floats)); return err }},
		{"[16]byte<-string", nil, func() error { return new(Filter[[16]byte]).UnmarshalBinary(strs) }},
		{"digest<-string", nil, func() error { _, err := NewView[digest](strs); return err }},
		{"[16]byte<-uint64", ErrIncompatible, func() error { return new(Filter[[16]byte]).UnmarshalBinary(ints) }},
		{"[32]byte<-float32", ErrIncompatible, func() error { _, err := NewViewUnverified[[32]byte](floats); return err }},
	} {
		if err := c.fn(); !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	// One family, one hash: a filter of uint64 read as int32 finds int32 keys
	// inserted as uint64.
	orig := mustNew[uint64](t, Config{Capacity: 100})
	for k := range int32(50) {
		_ = orig.Insert(uint64(int64(k - 25))) // sign-extended, as int32 keys hash
	}
	var f Filter[int32]
	if err := f.UnmarshalBinary(mustMarshal(t, orig)); err != nil {
		t.Fatal(err)
	}
	for k := range int32(50) {
		if !f.Contains(k - 25) {
			t.Fatalf("int32 key %d not found", k-25)
		}
	}

	// Byte arrays, strings and byte slices are one family: each reads the
	// others' encodings and finds the same keys.
	ids := builtFilter(t, Config{Capacity: 100}, 100, uuidKey)
	encIDs := mustMarshal(t, ids)
	if encIDs[offKind] != byte(kindBytes) {
		t.Fatalf("a filter of [16]byte keys is encoded as family %d", encIDs[offKind])
	}
	sv, err := NewView[string](encIDs)
	if err != nil {
		t.Fatal(err)
	}
	var bf Filter[[]byte]
	if err := bf.UnmarshalBinary(encIDs); err != nil {
		t.Fatal(err)
	}
	var back Filter[[16]byte]
	if err := back.UnmarshalBinary(mustMarshal(t, &bf)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 100; i++ {
		if u := uuidKey(i); i%5 != 0 && (!sv.Contains(string(u[:])) || !bf.Contains(u[:]) || !back.Contains(u)) {
			t.Fatalf("key %d lost across the bytes family", i)
		}
	}
	digests := builtFilter(t, Config{Capacity: 100}, 100, func(i int) string { d := digestKey(i); return string(d[:]) })
	dv, err := NewView[digest](mustMarshal(t, digests))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 100; i++ {
		if i%5 != 0 && !dv.Contains(digestKey(i)) {
			t.Fatalf("digest %d inserted as a string not found in a View[digest]", i)
		}
	}
}

func TestUnmarshalZeroFilter(t *testing.T) {
	orig := builtFilter(t, Config{Capacity: 200, Seed: 3}, 200, intKey)
	enc := mustMarshal(t, orig)
	var zero Filter[uint64]
	if _, err := zero.MarshalBinary(); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "neither by New nor by decoding") {
		t.Fatalf("MarshalBinary of a zero Filter: %v", err)
	}
	if b, err := zero.AppendBinary([]byte("x")); !errors.Is(err, ErrIncompatible) || string(b) != "x" {
		t.Fatalf("AppendBinary of a zero Filter: %q %v", b, err)
	}
	if _, err := zero.WriteTo(io.Discard); !errors.Is(err, ErrIncompatible) || zero.EncodedSize() != 0 {
		t.Fatalf("WriteTo of a zero Filter: %v", err)
	}
	if err := zero.UnmarshalBinary(enc[:10]); err == nil || zero.c.t.data != nil {
		t.Fatal("a failed UnmarshalBinary changed the zero Filter")
	}
	if err := zero.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	checkSameAnswers(t, orig, &zero, []uint64{intKey(1), intKey(2), 5, 6})
	read := new(Filter[uint64])
	if _, err := read.ReadFrom(bytes.NewReader(enc)); err != nil {
		t.Fatal(err)
	}
	if err := read.Insert(12345); err != nil || !read.Contains(12345) {
		t.Fatalf("insert into a read filter: %v", err)
	}
}

// TestReadFromStream reads filters written back to back and checks that each
// ReadFrom stops exactly at the end of its filter.
func TestReadFromStream(t *testing.T) {
	var stream bytes.Buffer
	var filters []*Filter[uint64]
	for i, c := range []int{1, 50, 3000, 7, 40} {
		cfg := Config{Capacity: c, FingerprintBits: 5 + 6*i}
		if i == 3 { // growable, between fixed filters
			cfg.MaxCapacity = c << 4
			c *= 6
		}
		f := builtFilter(t, cfg, c, intKey)
		if _, err := f.WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
		filters = append(filters, f)
	}
	stream.WriteString("trailer")
	for _, wrap := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.DataErrReader,
	} {
		r := wrap(bytes.NewReader(stream.Bytes()))
		for _, want := range filters {
			var f Filter[uint64]
			n, err := f.ReadFrom(r)
			if err != nil || n != int64(want.EncodedSize()) {
				t.Fatalf("ReadFrom: %d bytes, %v", n, err)
			}
			checkSameAnswers(t, want, &f, []uint64{intKey(1), intKey(5), 1, 2})
		}
		rest, _ := io.ReadAll(r)
		if string(rest) != "trailer" {
			t.Fatalf("after the filters: %q", rest)
		}
		var f Filter[uint64]
		if _, err := f.ReadFrom(r); err != io.EOF {
			t.Fatalf("ReadFrom at the end: %v", err)
		}
	}
	failing := iotest.ErrReader(errors.New("disk on fire"))
	if _, err := new(Filter[uint64]).ReadFrom(failing); err == nil || errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadFrom of a failing reader: %v", err)
	}
}

type failingWriter struct{ n, limit int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		k := w.limit - w.n
		w.n = w.limit
		return k, errors.New("disk full")
	}
	w.n += len(p)
	return len(p), nil
}

func TestWriteToErrors(t *testing.T) {
	f := builtFilter(t, Config{Capacity: 100}, 100, intKey)
	size := f.EncodedSize()
	for _, limit := range []int{0, 10, headerSize, size - 1} {
		w := &failingWriter{limit: limit}
		if n, err := f.WriteTo(w); err == nil || n != int64(limit) {
			t.Errorf("limit %d: wrote %d, %v", limit, n, err)
		}
	}
}

// TestEncodingBitFlips flips every bit of an encoding: each flip is rejected
// with a sentinel by every decoder, and leaves the receiver unchanged.
func TestEncodingBitFlips(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, f := range []int{4, 11, 32, -6} { // -6: growable, 6 bits
			cfg, n := Config{Capacity: 12, FingerprintBits: f, Layout: layout}, 12
			if f < 0 {
				cfg, n = Config{Capacity: 16, MaxCapacity: 16 << 3, FingerprintBits: -f, Layout: layout}, 40
			}
			enc := mustMarshal(t, builtFilter(t, cfg, n, intKey))
			target := builtFilter(t, Config{Capacity: 30, Seed: 9}, 30, intKey)
			before := mustMarshal(t, target)
			bad := make([]byte, len(enc))
			for bit := range 8 * len(enc) {
				copy(bad, enc)
				bad[bit/8] ^= 1 << (bit % 8)
				what := fmt.Sprintf("f=%d, bit %d", f, bit)
				checkFormatErr(t, target.UnmarshalBinary(bad), what)
				_, err := NewView[uint64](bad)
				checkFormatErr(t, err, what)
				_, err = target.ReadFrom(bytes.NewReader(bad))
				checkFormatErr(t, err, what)
			}
			if !bytes.Equal(mustMarshal(t, target), before) {
				t.Fatal("failed decodes changed the receiver")
			}
		}
	})
}

// TestEncodingTruncations rejects every proper prefix of an encoding, and an
// encoding with a byte too many.
func TestEncodingTruncations(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		fixed := mustMarshal(t, builtFilter(t, Config{Capacity: 40, FingerprintBits: 13, Layout: layout}, 40, intKey))
		grown := mustMarshal(t, builtFilter(t, Config{Capacity: 20, MaxCapacity: 160, FingerprintBits: 13, Layout: layout}, 45, intKey))
		for _, enc := range [][]byte{fixed, grown} {
			testTruncations(t, enc)
		}
	})
}

func testTruncations(t *testing.T, enc []byte) {
	{
		var f Filter[uint64]
		for l := range len(enc) {
			what := fmt.Sprintf("%d of %d bytes", l, len(enc))
			checkFormatErr(t, f.UnmarshalBinary(enc[:l]), what)
			_, err := NewView[uint64](enc[:l])
			checkFormatErr(t, err, what)
			_, err = NewViewUnverified[uint64](enc[:l])
			checkFormatErr(t, err, what)
			n, err := f.ReadFrom(bytes.NewReader(enc[:l]))
			checkCut(t, err, l, what)
			if n != int64(l) {
				t.Fatalf("%s: ReadFrom counted %d", what, n)
			}
		}
		if f.c.t.data != nil {
			t.Fatal("a failed decode changed the receiver")
		}
		long := append(enc, 0)
		checkFormatErr(t, f.UnmarshalBinary(long), "one byte too many")
		_, err := NewView[uint64](long)
		checkFormatErr(t, err, "one byte too many")
	}
}

// reseal recomputes the checksum of an edited encoding.
func reseal(b []byte) []byte {
	end := len(b) - checksumSize
	binary.LittleEndian.PutUint32(b[end:], crc32.Checksum(b[:end], castagnoli))
	return b
}

// TestEncodingChecks makes encodings that are wrong in one way each, with a
// valid checksum where the checksum is not the point, and checks the error.
func TestEncodingChecks(t *testing.T) {
	orig := builtFilter(t, Config{Capacity: 50, FingerprintBits: 12}, 50, intKey)
	enc := mustMarshal(t, orig)
	le := binary.LittleEndian
	put8 := func(off int, v uint8) func([]byte) { return func(b []byte) { b[off] = v } }
	put32 := func(off int, v uint32) func([]byte) { return func(b []byte) { le.PutUint32(b[off:], v) } }
	put64 := func(off int, v uint64) func([]byte) { return func(b []byte) { le.PutUint64(b[off:], v) } }
	m := le.Uint64(enc[offBuckets:])
	count := le.Uint64(enc[offCount:])
	checkEdits(t, enc, []encodingEdit{
		{"magic", put8(0, 'X'), ErrCorrupt},
		{"version 0", put8(offVersion, 0), ErrUnsupportedVersion},
		{"version 1", put8(offVersion, 1), ErrUnsupportedVersion},
		{"version 2", put8(offVersion, 2), ErrUnsupportedVersion},
		{"version 4", put8(offVersion, 4), ErrUnsupportedVersion},
		{"version 6", put8(offVersion, 6), ErrUnsupportedVersion},
		{"version 256", put8(offVersion+1, 1), ErrUnsupportedVersion},
		{"generations", put8(offGenerations, 4), ErrCorrupt}, // 2 more bits a slot: the length is wrong
		{"current generation", put32(offGeneration, 1), ErrCorrupt},
		{"layout", put8(offLayout, 2), ErrCorrupt},
		{"bits 3", put8(offBits, 3), ErrCorrupt},
		{"bits 33", put8(offBits, 33), ErrCorrupt},
		{"slots", put8(offSlots, 8), ErrCorrupt},
		{"kind 0", put8(offKind, 0), ErrCorrupt},
		{"kind string", put8(offKind, byte(kindString)), ErrCorrupt},
		{"kind bytes", put8(offKind, byte(kindBytes)), ErrIncompatible},
		{"reserved 1", put8(offReserved1, 1), ErrCorrupt},
		{"reserved 2", put8(offReserved2, 1), ErrCorrupt},
		{"reserved last", put8(headerSize-1, 1), ErrCorrupt},
		{"flags", put8(offFlags, 2), ErrCorrupt},
		{"key check, not keyed", put64(offKeyCheck, 1), ErrCorrupt},
		{"max capacity below capacity", put64(offMaxCapacity, le.Uint64(enc[offCapacity:])-1), ErrCorrupt},
		{"doublings past the width", put8(offDoublings, byte(maxFingerprintBits-12+1)), ErrCorrupt},
		{"buckets odd", put64(offBuckets, m+1), ErrCorrupt},
		{"buckets 0", put64(offBuckets, 0), ErrCorrupt},
		{"buckets huge", put64(offBuckets, maxBuckets+2), ErrCorrupt},
		{"buckets other", put64(offBuckets, m+2), ErrCorrupt},
		{"count +1", put64(offCount, count+1), ErrCorrupt},
		{"count -1", put64(offCount, count-1), ErrCorrupt},
		{"count > slots", put64(offCount, 4*m+1), ErrCorrupt},
		{"capacity 0", put64(offCapacity, 0), ErrCorrupt},
		{"capacity negative", put64(offCapacity, 1<<63), ErrCorrupt},
		{"capacity > slots", put64(offCapacity, 4*m+1), ErrCorrupt},
		{"capacity 2^62", put64(offCapacity, 1<<62), ErrCorrupt},
		{"seed 0", put64(offSeed, 0), ErrCorrupt},
		{"max kicks 0", put32(offMaxKicks, 0), ErrCorrupt},
		{"max kicks too many", put32(offMaxKicks, MaxMaxKicks+1), ErrCorrupt},
		{"padding", put8(len(enc)-checksumSize-1, 1), ErrCorrupt},
		{"first padding byte", put8(len(enc)-checksumSize-tablePad, 0x80), ErrCorrupt},
		{"slot filled", editSlot(m, 12, false), ErrCorrupt},
		{"slot emptied", editSlot(m, 12, true), ErrCorrupt},
	})
}

// encodingEdit is an encoding made wrong in one way, and the error wanted.
type encodingEdit struct {
	name string
	edit func([]byte)
	want error
}

// checkEdits applies each edit to enc, with the checksum recomputed, and
// checks that UnmarshalBinary returns the wanted error and NewView the same
// one; and, unsealed, that the edit is refused for itself or by the checksum.
func checkEdits(t *testing.T, enc []byte, edits []encodingEdit) {
	t.Helper()
	for _, c := range edits {
		bad := bytes.Clone(enc)
		c.edit(bad)
		reseal(bad)
		err := new(Filter[uint64]).UnmarshalBinary(bad)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if _, verr := NewView[uint64](bad); fmt.Sprint(verr) != fmt.Sprint(err) {
			t.Errorf("%s: NewView %v, UnmarshalBinary %v", c.name, verr, err)
		}
		if !errors.Is(err, ErrChecksum) && !bytes.Equal(bad[len(bad)-checksumSize:], enc[len(enc)-checksumSize:]) {
			bad := bytes.Clone(enc) // unsealed: the header checks come first, the checksum then
			c.edit(bad)
			if err := new(Filter[uint64]).UnmarshalBinary(bad); !errors.Is(err, c.want) && !errors.Is(err, ErrChecksum) {
				t.Errorf("%s unsealed: %v", c.name, err)
			}
		}
	}
}

// editSlot returns an edit of a Packed encoding that fills the first empty
// slot, or empties the first full one, so that the item count is off by one.
func editSlot(m uint64, f uint, empty bool) func([]byte) {
	return func(b []byte) {
		t := tableShape(m, f, 0, 0, Packed, 0)
		t.data = b[headerSize : len(b)-checksumSize]
		for i := range m {
			for k := range uint(slotsPerBucket) {
				if (t.slot(i, k) != 0) == empty {
					t.setSlot(i, k, 1-min(t.slot(i, k), 1))
					return
				}
			}
		}
		panic("no slot to edit")
	}
}

// TestEncodingGarbage decodes random bytes, and random bytes behind a valid
// magic, version or header: never a panic, and no allocation beyond the
// error (UnmarshalBinary, NewView) or beyond what the stream holds (ReadFrom).
func TestEncodingGarbage(t *testing.T) {
	valid := mustMarshal(t, builtFilter(t, Config{Capacity: 100}, 100, intKey))
	rng := newRand(7)
	n := 3000
	if testing.Short() {
		n = 300
	}
	var inputs [][]byte
	for i := range n {
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		switch i % 4 {
		case 1: // a valid magic and version
			if len(b) >= 6 {
				copy(b, valid[:6])
			}
		case 2: // a valid header, garbage after it
			copy(b, valid[:min(len(b), headerSize)])
		case 3: // a valid header claiming a huge table
			b = append(bytes.Clone(valid[:headerSize]), b...)
			binary.LittleEndian.PutUint64(b[offBuckets:], maxBuckets-uint64(rng.IntN(1000))*2)
		}
		inputs = append(inputs, b)
	}
	inputs = append(inputs, valid[:headerSize], nil, []byte("CKOO"), []byte("CK"), []byte("XX"))
	const slack = 4096 // three error values
	for _, in := range inputs {
		var f Filter[uint64]
		var err1, err2, err3, err4 error
		if d := minAlloc(func() {
			err1 = f.UnmarshalBinary(in)
			_, err2 = NewView[uint64](in)
			_, err3 = NewViewUnverified[uint64](in)
		}); d > uint64(len(in))+slack {
			t.Fatalf("decoding %d bytes allocated %d", len(in), d)
		}
		if d := minAlloc(func() { _, err4 = f.ReadFrom(bytes.NewReader(in)) }); d > 2*uint64(len(in))+headerSize+readChunk+slack {
			t.Fatalf("ReadFrom of %d bytes allocated %d", len(in), d)
		}
		if len(in) == 0 && err4 != io.EOF {
			t.Fatalf("ReadFrom of an empty stream: %v, want io.EOF", err4)
		} else if len(in) > 0 {
			checkFormatErr(t, err4, fmt.Sprintf("ReadFrom of %d random bytes", len(in)))
		}
		for _, err := range []error{err1, err2} {
			checkFormatErr(t, err, fmt.Sprintf("%d random bytes", len(in)))
		}
		if err3 == nil && len(in) != len(valid) { // it skips the checksum
			t.Fatalf("NewViewUnverified accepted %d random bytes", len(in))
		}
	}
}

// goldenCase is a filter whose encoding is kept in testdata/. Adding a case
// and running `go test -run Golden -update` adds its file.
//
// The files pin the format, not the sizing: a case with buckets != 0 is
// built with that bucket count instead of the one New picks today, the
// count of the sizing before small tables kept minFreeSlots slots free
// (TestSmallTableSizing says what New gives them now). A growable case's
// buckets and doublings are its first table's and how many it may make,
// from the sizing before the first table became Capacity's whatever
// MaxCapacity is (TestGrowableConfig).
type goldenCase struct {
	file      string
	cfg       Config
	strings   bool   // string keys, else uint64
	keys      int    // keys inserted (every fifth then deleted); 0 means Capacity
	buckets   uint64 // the bucket count in the file, if New no longer picks it
	doublings uint   // a growable case's, with buckets
}

var goldenCases = []goldenCase{
	{"v5-packed-f4.bin", Config{Capacity: 60, FingerprintBits: 4}, false, 0, 26, 0},
	{"v5-packed-f8.bin", Config{Capacity: 100, FingerprintBits: 8, Seed: 1}, false, 0, 30, 0},
	{"v5-packed-f12.bin", Config{Capacity: 100, FingerprintBits: 12, MaxKicks: 1000}, false, 0, 30, 0},
	{"v5-packed-f13-string.bin", Config{Capacity: 150, Seed: 0xfeed}, true, 0, 42, 0},
	{"v5-packed-f16.bin", Config{Capacity: 100, FingerprintBits: 16}, false, 0, 30, 0},
	{"v5-packed-f17.bin", Config{Capacity: 100, FingerprintBits: 17, Seed: 17}, false, 0, 30, 0},
	{"v5-packed-f25.bin", Config{Capacity: 80, FingerprintBits: 25}, false, 0, 24, 0},
	{"v5-packed-f32.bin", Config{Capacity: 80, FingerprintBits: 32, MaxKicks: 7}, false, 0, 24, 0},
	{"v5-semisorted-f4.bin", Config{Capacity: 60, FingerprintBits: 4, Layout: SemiSorted}, false, 0, 26, 0},
	{"v5-semisorted-f9.bin", Config{Capacity: 100, FingerprintBits: 9, Layout: SemiSorted, Seed: 9}, false, 0, 30, 0},
	{"v5-semisorted-f13-string.bin", Config{Capacity: 150, Layout: SemiSorted, Seed: 0xfeed}, true, 0, 42, 0},
	{"v5-semisorted-f16.bin", Config{Capacity: 100, FingerprintBits: 16, Layout: SemiSorted}, false, 0, 30, 0},
	{"v5-semisorted-f21.bin", Config{Capacity: 90, FingerprintBits: 21, Layout: SemiSorted}, false, 0, 26, 0},
	{"v5-semisorted-f32.bin", Config{Capacity: 80, FingerprintBits: 32, Layout: SemiSorted, MaxKicks: 7}, false, 0, 24, 0},
	{"v5-growable-packed-f8.bin", Config{Capacity: 30, MaxCapacity: 30 << 4, FingerprintBits: 8, Seed: 2}, false, 150, 20, 3},
	{"v5-growable-packed-f13-string.bin", Config{Capacity: 20, MaxCapacity: 20 << 6, Seed: 0xfeed}, true, 20, 22, 4},
	{"v5-growable-semisorted-f12.bin", Config{Capacity: 25, MaxCapacity: 25 << 5, FingerprintBits: 12, Layout: SemiSorted}, false, 300, 28, 3},
	{"v5-grown-semisorted-f21.bin", Config{Capacity: 16, MaxCapacity: 16 << 3, FingerprintBits: 21, Layout: SemiSorted}, false, 128, 22, 1},
	{"v5-keyed-packed-f13-string.bin", Config{Capacity: 60, Key: [16]byte{'g', 'o', 'l', 'd', 'e', 'n'}}, true, 0, 0, 0},
	{"v5-keyed-growable-semisorted-f10.bin", Config{Capacity: 20, MaxCapacity: 160, FingerprintBits: 10, Layout: SemiSorted, Key: [16]byte{15: 1}}, false, 100, 26, 1},
}

// TestGolden checks the files in testdata/: each decodes, answers like the
// filter built from its case on this host, and re-encodes to the same bytes.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.file, func(t *testing.T) {
			if c.strings {
				testGolden(t, c, stringKey)
			} else {
				testGolden(t, c, intKey)
			}
		})
	}
}

func testGolden[T Hashable](t *testing.T, c goldenCase, key func(int) T) {
	n := c.keys
	if n == 0 {
		n = c.cfg.Capacity
	}
	f := mustNew[T](t, c.cfg)
	switch {
	case c.doublings != 0:
		pinFirst(&f.c, c.buckets, c.doublings)
	case c.buckets != 0:
		f.c.t = newTable(c.buckets, f.c.t.f, f.c.t.layout)
	}
	built := fillBuilt(t, f, n, key)
	golden := goldenBytes(t, c.file, mustMarshal(t, built))
	dec, view, err := new(Filter[T]), (*View[T])(nil), error(nil)
	if c.cfg.Key == ([16]byte{}) {
		view, err = NewView[T](golden)
	} else { // keyed: decoded into a filter with the key, viewed with it
		dec = mustNew[T](t, c.cfg)
		view, err = NewKeyedView[T](golden, c.cfg.Key)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := dec.UnmarshalBinary(golden); err != nil {
		t.Fatal(err)
	}
	keys := make([]T, 0, 2000)
	for i := range cap(keys) {
		keys = append(keys, key(i))
	}
	checkSameAnswers(t, built, dec, keys)
	checkSameAnswers(t, built, view, keys)
	stored := 0
	for i := range n {
		if i%5 != 0 {
			stored++
			if !view.Contains(key(i)) {
				t.Fatalf("key %d lost", i)
			}
		}
	}
	if view.Len() != stored || view.Capacity() != c.cfg.Capacity {
		t.Fatalf("Len %d Capacity %d, want %d %d", view.Len(), view.Capacity(), stored, c.cfg.Capacity)
	}
	if !bytes.Equal(mustMarshal(t, dec), golden) {
		t.Fatal("re-encoding differs")
	}
}

func BenchmarkAppendBinary(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			f, _, _ := benchFilter[uint64](b, n, Packed)
			buf := make([]byte, 0, f.EncodedSize())
			b.SetBytes(int64(f.EncodedSize()))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = f.AppendBinary(buf[:0])
			}
		})
	}
}

func BenchmarkUnmarshalBinary(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			f, _, _ := benchFilter[uint64](b, n, Packed)
			enc := mustMarshal(b, f)
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			var g Filter[uint64]
			for b.Loop() {
				if err := g.UnmarshalBinary(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// minAlloc is the fewest bytes fn allocated in three runs: TotalAlloc also
// counts whatever other goroutines allocate meanwhile, which a real
// allocation by fn survives and a stray one does not.
func minAlloc(fn func()) uint64 {
	least := ^uint64(0)
	var before, after runtime.MemStats
	for range 3 {
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestEncodingChecksGrowable is TestEncodingChecks for a grown filter's
// fields: its stage and MaxCapacity.
func TestEncodingChecksGrowable(t *testing.T) {
	orig := builtFilter(t, Config{Capacity: 20, MaxCapacity: 20 << 4, FingerprintBits: 12}, 100, intKey)
	enc := mustMarshal(t, orig)
	le := binary.LittleEndian
	if orig.c.t.k == 0 {
		t.Fatal("the test wants a grown filter")
	}
	put8 := func(off int, v uint8) func([]byte) { return func(b []byte) { b[off] = v } }
	put64 := func(off int, v uint64) func([]byte) { return func(b []byte) { le.PutUint64(b[off:], v) } }
	g, k, m := enc[offDoublings], enc[offStage], le.Uint64(enc[offBuckets:])
	checkEdits(t, enc, []encodingEdit{
		{"flags", put8(offFlags, 2), ErrCorrupt},
		{"keyed flag, read without a key", put8(offFlags, flagKeyed), ErrIncompatible},
		{"key check, not keyed", put64(offKeyCheck, 1), ErrCorrupt},
		{"stage past doublings", put8(offStage, g+1), ErrCorrupt},
		{"stage other", put8(offStage, k-1), ErrCorrupt},
		{"doublings past the width", put8(offDoublings, byte(maxFingerprintBits-12+1)), ErrCorrupt},
		{"doublings other", put8(offDoublings, g+1), ErrCorrupt},
		{"buckets not doubled", put64(offBuckets, m+2), ErrCorrupt},
		{"max capacity below capacity", put64(offMaxCapacity, 19), ErrCorrupt},
		{"max capacity negative", put64(offMaxCapacity, 1<<63), ErrCorrupt},
	})
	// MaxCapacity is the user's number, not derived from the geometry: any
	// value from Capacity up decodes, and is what MaxCapacity reports.
	other := reseal(func(b []byte) []byte { put64(offMaxCapacity, 20<<4+1)(b); return b }(bytes.Clone(enc)))
	var dec Filter[uint64]
	if err := dec.UnmarshalBinary(other); err != nil || dec.MaxCapacity() != 20<<4+1 {
		t.Errorf("another MaxCapacity: %v, MaxCapacity %d", err, dec.MaxCapacity())
	}
}

// TestEncodingSupersededVersions: encodings of the versions written before the
// first release (testdata/superseded: 1 and 2 with a header, 3 and 4
// compact) and of versions not yet written are refused by every reader
// with an error wrapping ErrUnsupportedVersion that names the version read
// and the one this package reads, before any other check.
func TestEncodingSupersededVersions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "superseded", "v*.bin"))
	if err != nil || len(files) < 6 {
		t.Fatalf("%d superseded files: %v", len(files), err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := strconv.Atoi(filepath.Base(path)[1:2])
		checkRefused(t, filepath.Base(path), data, v)
	}
	// Version 4's compact bytes are version 5's but for the version byte,
	// and version 2's header version 5's but for the version field: the
	// version alone refuses them.
	for old, cur := range map[string]string{
		"v4-compact-packed-f8.bin":                  "v5-compact-packed-f8.bin",
		"v4-compact-semisorted-f24-string-seed.bin": "v5-compact-semisorted-f24-string-seed.bin",
		"v2-grown-semisorted-f21.bin":               "v5-grown-semisorted-f21.bin",
	} {
		b, err1 := os.ReadFile(filepath.Join("testdata", "superseded", old))
		want, err2 := os.ReadFile(filepath.Join("testdata", cur))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if isCompact(b[0]) {
			b[0] = compactVersion
		} else {
			binary.LittleEndian.PutUint16(b[offVersion:], formatVersion)
			reseal(b)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s with the current version is not %s", old, cur)
		}
	}
	// Today's encodings with another version, earlier or later.
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: 50, FingerprintBits: 12}, 50, intKey))
	compact := mustCompact(t, builtFilter(t, Config{Capacity: 50, FingerprintBits: 12}, 50, intKey))
	for _, v := range []int{0, 1, 2, 3, 4, 6, 7, 0xffff} {
		b := bytes.Clone(enc)
		binary.LittleEndian.PutUint16(b[offVersion:], uint16(v))
		checkRefused(t, fmt.Sprintf("version %d", v), reseal(b), v)
		if v <= maxCompactVersion && isCompact(byte(v)) {
			b := bytes.Clone(compact)
			b[0] = byte(v)
			checkRefused(t, fmt.Sprintf("compact version %d", v), b, v)
		}
	}
	b := bytes.Clone(compact)
	b[0] = maxCompactVersion
	checkRefused(t, "compact version 31", b, maxCompactVersion)
}

// checkRefused fails unless every reader refuses data, an encoding of
// version v, with ErrUnsupportedVersion naming v and formatVersion.
func checkRefused(t *testing.T, what string, data []byte, v int) {
	t.Helper()
	key := [16]byte{15: 1}
	var errs []error
	add := func(_ any, err error) { errs = append(errs, err) }
	errs = append(errs, new(Filter[uint64]).UnmarshalBinary(data), new(Filter[string]).UnmarshalBinary(data),
		mustNew[uint64](t, Config{Capacity: 1, Key: key}).UnmarshalBinary(data),
		new(ConcurrentFilter[uint64]).UnmarshalBinary(data))
	add(NewView[uint64](data))
	add(NewViewUnverified[string](data))
	add(NewKeyedView[uint64](data, key))
	add(DecodeKeyed[uint64](data, key))
	add(EncodedLen(data))
	add(new(Filter[uint64]).ReadFrom(bytes.NewReader(data)))
	add(new(ConcurrentFilter[uint64]).ReadFrom(bytes.NewReader(data)))
	ok, err := ContainsEncoded(data, uint64(1))
	add(nil, err)
	add(ContainsHashEncoded(data, 1))
	for i, err := range errs {
		msg := fmt.Sprint(err)
		if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(msg, fmt.Sprintf("version %d;", v)) ||
			!strings.Contains(msg, fmt.Sprintf("reads version %d", formatVersion)) {
			t.Errorf("%s, reader %d: %v; want ErrUnsupportedVersion naming versions %d and %d", what, i, err, v, formatVersion)
		}
	}
	if !ok {
		t.Errorf("%s: ContainsEncoded answered false", what)
	}
}

// TestEncodingLayerBitsWithoutFingerprint: a growable table's slot of layer
// bits over fingerprint 0 is refused. Accepted, the doublings turned it
// into an empty slot that Len still counted, and the grown filter's own
// encoding was refused for its item count.
func TestEncodingLayerBitsWithoutFingerprint(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint64](t, Config{Capacity: 80, MaxCapacity: 80 << 4, FingerprintBits: 8, Layout: layout})
		tb := &f.c.t
		if tb.g == 0 || tb.k != 0 {
			t.Fatalf("want an ungrown growable table, stage %d of %d", tb.k, tb.g)
		}
		v := uint32(1) << tb.fbits // a layer bit, no fingerprint bit
		lo, hi := tb.encode([4]uint32{v})
		tb.setBucket(0, lo, hi)
		f.c.count = 1
		enc := mustMarshal(t, f)
		var d Filter[uint64]
		var c ConcurrentFilter[uint64]
		_, verr := NewView[uint64](enc)
		for name, err := range map[string]error{"Filter": d.UnmarshalBinary(enc), "ConcurrentFilter": c.UnmarshalBinary(enc), "View": verr} {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "holds fingerprint 0") {
				t.Errorf("%s: a slot %#x of fingerprint 0 decoded: %v", name, v, err)
			}
		}
	})
}
