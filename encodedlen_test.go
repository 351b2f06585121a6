package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// walkView opens the encoding at the start of data with EncodedLen and
// NewView, checks it answers like want, and returns the rest of data.
func walkView[T Hashable](t *testing.T, data []byte, want *Filter[T], keys []T) []byte {
	t.Helper()
	n, err := EncodedLen(data)
	if err != nil {
		t.Fatal(err)
	}
	if n != want.EncodedSize() {
		t.Fatalf("EncodedLen %d, the filter's EncodedSize %d", n, want.EncodedSize())
	}
	// Cut anywhere after the header: the length, and io.ErrUnexpectedEOF.
	for _, cut := range []int{headerSize, max(headerSize, n/2), n - 1} {
		if h, err := EncodedLen(data[:cut]); h != n || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("EncodedLen of %d of %d bytes: %d, %v", cut, n, h, err)
		}
	}
	v, err := NewView[T](data[:n])
	if err != nil {
		t.Fatal(err)
	}
	checkSameAnswers(t, want, v, keys)
	return data[n:]
}

// TestEncodedLenWalk writes six filters of different widths, layouts, key
// types and growth back to back and opens each at its offset with
// EncodedLen + NewView.
func TestEncodedLenWalk(t *testing.T) {
	ints := builtFilter(t, Config{Capacity: 300, FingerprintBits: 4}, 300, intKey)
	strs := builtFilter(t, Config{Capacity: 1000, Layout: SemiSorted, Seed: 3}, 1000, stringKey)
	floats := builtFilter(t, Config{Capacity: 50, FingerprintBits: 21}, 50, func(i int) float64 { return float64(i) / 3 })
	ids := builtFilter(t, Config{Capacity: 2000, FingerprintBits: 32, Layout: SemiSorted}, 2000, uuidKey)
	small := builtFilter(t, Config{Capacity: 1, FingerprintBits: 9}, 1, func(i int) int8 { return int8(i) })
	grown := builtFilter(t, Config{Capacity: 10, MaxCapacity: 10 << 5, FingerprintBits: 11}, 100, intKey) // growable, grown
	var file []byte
	for _, f := range []interface{ AppendBinary([]byte) ([]byte, error) }{ints, strs, floats, grown, ids, small} {
		var err error
		if file, err = f.AppendBinary(file); err != nil {
			t.Fatal(err)
		}
	}
	rest := file
	rest = walkView(t, rest, ints, []uint64{intKey(1), intKey(2), intKey(5), 3, 4})
	rest = walkView(t, rest, strs, []string{stringKey(1), stringKey(10), "absent"})
	rest = walkView(t, rest, floats, []float64{1.0 / 3, 2, 2.0 / 3})
	rest = walkView(t, rest, grown, []uint64{intKey(1), intKey(2), intKey(5), intKey(99), 3, 4})
	rest = walkView(t, rest, ids, []uuid{uuidKey(1), uuidKey(5), uuidKey(3000)})
	rest = walkView(t, rest, small, []int8{0, 1, 2})
	if len(rest) != 0 {
		t.Fatalf("%d bytes left after the six filters", len(rest))
	}
}

// TestEncodedLenErrors: truncated and corrupt headers and garbage give the
// header's errors, never a panic or a length.
func TestEncodedLenErrors(t *testing.T) {
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: 100, FingerprintBits: 12}, 100, intKey))
	if n, err := EncodedLen(enc); n != len(enc) || err != nil {
		t.Fatalf("EncodedLen of a whole encoding: %d, %v", n, err)
	}
	if a := testing.AllocsPerRun(10, func() { _, _ = EncodedLen(enc) }); a != 0 {
		t.Fatalf("EncodedLen allocates %v times", a)
	}
	for l := range headerSize {
		if n, err := EncodedLen(enc[:l]); n != 0 || !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("header cut to %d bytes: %d, %v", l, n, err)
		}
	}
	// Every header bit flipped: an error, or a length that NewView rejects
	// unless it is the true one (the flip is in a field that does not set
	// the length, and the checksum catches it).
	for bit := range 8 * headerSize {
		bad := bytes.Clone(enc)
		bad[bit/8] ^= 1 << (bit % 8)
		n, err := EncodedLen(bad)
		if isCompact(bad[0]) {
			// A compact encoding's version byte, of an earlier version
			// ('C' to 3): refused as that.
			if _, verr := NewView[uint64](bad); n != 0 || !errors.Is(err, ErrUnsupportedVersion) || !errors.Is(verr, ErrUnsupportedVersion) {
				t.Fatalf("bit %d: EncodedLen %d, %v; NewView %v", bit, n, err, verr)
			}
			continue
		}
		if errors.Is(err, io.ErrUnexpectedEOF) { // a length longer than enc
			if n <= len(bad) {
				t.Fatalf("bit %d: length %d of %d bytes with %v", bit, n, len(bad), err)
			}
			continue
		}
		if err != nil {
			if n != 0 {
				t.Fatalf("bit %d: length %d with %v", bit, n, err)
			}
			checkFormatErr(t, err, fmt.Sprintf("bit %d", bit))
			if _, verr := NewView[uint64](bad); verr == nil || verr.Error() != err.Error() {
				t.Fatalf("bit %d: EncodedLen says %v, NewView %v", bit, err, verr)
			}
			continue
		}
		if n < headerSize+tablePad+checksumSize {
			t.Fatalf("bit %d: length %d", bit, n)
		}
		if _, err := NewView[uint64](bad[:min(n, len(bad))]); err == nil {
			t.Fatalf("bit %d: accepted", bit)
		}
	}
	le := binary.LittleEndian
	v3 := bytes.Clone(enc)
	le.PutUint16(v3[offVersion:], 3)
	if _, err := EncodedLen(v3[:offVersion+2]); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("version 3: %v", err)
	}
	rng := newRand(11)
	for range 2000 {
		b := make([]byte, rng.IntN(200))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if rng.IntN(2) == 0 && len(b) >= 6 {
			copy(b, enc[:6])
		}
		if n, err := EncodedLen(b); err == nil || n != 0 {
			t.Fatalf("%d random bytes: %d, %v", len(b), n, err)
		} else {
			checkFormatErr(t, err, "random bytes")
		}
	}
}

// TestEncodedLenShortHeader: a header cut short gives EncodedLen's promise,
// ErrCorrupt and io.ErrUnexpectedEOF, at every cut from 0 bytes (no header
// yet) to 127, as far as the magic and version are right; a wrong magic or
// version is refused as soon as its bytes are there, without the EOF, and
// the decoders, given what should be a whole encoding, call any cut
// corrupt.
func TestEncodedLenShortHeader(t *testing.T) {
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: 100, FingerprintBits: 12}, 100, intKey))
	for cut := range headerSize {
		b := enc[:cut]
		n, err := EncodedLen(b)
		if n != 0 || !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("EncodedLen of a header cut to %d bytes: %d, %v; want 0 and ErrCorrupt with io.ErrUnexpectedEOF", cut, n, err)
		}
		want := fmt.Sprintf("truncated: %s of a %d-byte header", plural(cut, "byte"), headerSize)
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("EncodedLen of %d bytes: %q, want it to say %q", cut, err, want)
		}
		_, verr := NewView[uint64](b)
		_, uerr := NewViewUnverified[uint64](b)
		_, kerr := NewKeyedView[uint64](b, testKey)
		_, derr := DecodeKeyed[uint64](b, testKey)
		var f Filter[uint64]
		ferr := f.UnmarshalBinary(b)
		var c ConcurrentFilter[uint64]
		cerr := c.UnmarshalBinary(b)
		ok, eerr := ContainsEncoded(b, uint64(1))
		hok, herr := ContainsHashEncoded(b, 1)
		for name, err := range map[string]error{"NewView": verr, "NewViewUnverified": uerr, "NewKeyedView": kerr,
			"DecodeKeyed": derr, "Filter.UnmarshalBinary": ferr, "ConcurrentFilter.UnmarshalBinary": cerr,
			"ContainsEncoded": eerr, "ContainsHashEncoded": herr} {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s of a header cut to %d bytes: %v, want ErrCorrupt", name, cut, err)
			}
		}
		if !ok || !hok {
			t.Fatalf("ContainsEncoded of a header cut to %d bytes: %v, %v; want true with the error", cut, ok, hok)
		}
	}

	// Wrong bytes are refused as soon as they are there, not waited for.
	badMagic := bytes.Clone(enc)
	badMagic[2] = 'X'
	for cut := 3; cut < headerSize; cut++ {
		if n, err := EncodedLen(badMagic[:cut]); n != 0 || !errors.Is(err, ErrCorrupt) || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("bad magic cut to %d bytes: %d, %v; want ErrCorrupt without io.ErrUnexpectedEOF", cut, n, err)
		}
	}
	badVersion := bytes.Clone(enc)
	binary.LittleEndian.PutUint16(badVersion[offVersion:], formatVersion+1)
	for cut := offVersion + 2; cut < headerSize; cut++ {
		if n, err := EncodedLen(badVersion[:cut]); n != 0 || !errors.Is(err, ErrUnsupportedVersion) || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("version %d cut to %d bytes: %d, %v; want ErrUnsupportedVersion without io.ErrUnexpectedEOF", formatVersion+1, cut, n, err)
		}
	}
}
