package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/iotest"
)

// checkCut fails unless err is what ReadFrom must return for a stream that
// ends after cut bytes of an encoding: the reader's io.EOF, not wrapped in
// ErrCorrupt, when no byte came; ErrCorrupt with io.ErrUnexpectedEOF and
// never io.EOF otherwise.
func checkCut(tb testing.TB, err error, cut int, what string) {
	tb.Helper()
	eof, unexpected := errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF)
	switch {
	case cut == 0 && (!eof || unexpected || errors.Is(err, ErrCorrupt)):
		tb.Fatalf("%s, empty stream: %v, want io.EOF alone", what, err)
	case cut > 0 && !errors.Is(err, ErrCorrupt):
		tb.Fatalf("%s, cut at %d: %v does not wrap ErrCorrupt", what, cut, err)
	case cut > 0 && (eof || !unexpected):
		tb.Fatalf("%s, cut at %d: %v, want io.ErrUnexpectedEOF and not io.EOF", what, cut, err)
	}
}

// TestReadFromCutEverywhere cuts a small encoding at every length, read
// through readers that deliver it in different pieces.
func TestReadFromCutEverywhere(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		enc := mustMarshal(t, builtFilter(t, Config{Capacity: 60, FingerprintBits: 11, Layout: layout}, 60, intKey))
		readers := []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"one byte", iotest.OneByteReader},
			{"half", iotest.HalfReader},
			{"data with EOF", iotest.DataErrReader},
		}
		for _, rd := range readers {
			for cut := range len(enc) {
				var f Filter[uint64]
				n, err := f.ReadFrom(rd.wrap(bytes.NewReader(enc[:cut])))
				checkCut(t, err, cut, rd.name)
				if n != int64(cut) || f.c.t.data != nil {
					t.Fatalf("%s, cut at %d: read %d bytes, filter changed: %v", rd.name, cut, n, f.c.t.data != nil)
				}
			}
		}
	})
}

// TestReadFromCutStream reads filters written back to back until io.EOF, the
// loop the io.EOF rule is for: cut anywhere but between two filters, the
// loop ends in an error, never cleanly with a filter missing.
func TestReadFromCutStream(t *testing.T) {
	var stream bytes.Buffer
	ends := []int{0}
	for i, c := range []int{5, 30, 12} {
		f := builtFilter(t, Config{Capacity: c, FingerprintBits: 6 + 5*i}, c, intKey)
		if _, err := f.WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, stream.Len())
	}
	all := stream.Bytes()
	for cut := 0; cut <= len(all); cut++ {
		r := bytes.NewReader(all[:cut])
		read := 0
		var err error
		for {
			var f Filter[uint64]
			if _, err = f.ReadFrom(r); err != nil {
				break
			}
			read++
		}
		clean := errors.Is(err, io.EOF)
		if boundary := slices.Index(ends, cut); boundary >= 0 {
			if !clean || read != boundary {
				t.Fatalf("cut at filter boundary %d: %d filters, then %v", cut, read, err)
			}
		} else if clean {
			t.Fatalf("cut at %d, inside filter %d: the loop ended cleanly after %d filters (%v)", cut, read+1, read, err)
		}
	}
}

// offsetRecorder records the offset in the stream at which each Read starts.
type offsetRecorder struct {
	r       io.Reader
	off     int
	offsets []int
}

func (o *offsetRecorder) Read(p []byte) (int, error) {
	o.offsets = append(o.offsets, o.off)
	n, err := o.r.Read(p)
	o.off += n
	return n, err
}

// TestReadFromCutLarge cuts a multi-megabyte encoding wherever ReadFrom
// starts a read (6, 64, then the boundaries of the growing table buffer)
// and one byte either side of those, and at every 64 KiB boundary (4 KiB
// with longTests(), 256 KiB with -short).
func TestReadFromCutLarge(t *testing.T) {
	t.Parallel()
	f := mustNew[uint64](t, Config{Capacity: 4_000_000, FingerprintBits: 13, Seed: 3})
	for i := range 1000 {
		_ = f.Insert(intKey(i))
	}
	enc := mustMarshal(t, f)
	rec := &offsetRecorder{r: bytes.NewReader(enc)}
	if _, err := new(Filter[uint64]).ReadFrom(rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.offsets) < 6 || rec.offsets[0] != 0 || rec.offsets[1] != offVersion+2 || rec.offsets[2] != headerSize {
		t.Fatalf("ReadFrom read at offsets %v", rec.offsets)
	}
	t.Logf("%d-byte encoding, reads start at %v", len(enc), rec.offsets)
	step := 64 << 10
	switch {
	case longTests():
		step = 4 << 10
	case testing.Short():
		step = 256 << 10
	}
	cuts := []int{1, len(enc) - 1}
	for cut := 0; cut < len(enc); cut += step {
		cuts = append(cuts, cut)
	}
	for _, off := range rec.offsets {
		cuts = append(cuts, off-1, off, off+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for _, cut := range cuts {
		if cut < 0 || cut >= len(enc) {
			continue
		}
		var g Filter[uint64]
		n, err := g.ReadFrom(bytes.NewReader(enc[:cut]))
		checkCut(t, err, cut, fmt.Sprintf("%d-byte encoding", len(enc)))
		if n != int64(cut) {
			t.Fatalf("cut at %d: ReadFrom counted %d", cut, n)
		}
	}
}

// eofWrapper ends its data with its own error wrapping io.EOF.
type eofWrapper struct{ r io.Reader }

func (e eofWrapper) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		err = fmt.Errorf("segment 3: %w", io.EOF)
	}
	return n, err
}

// TestReadFromWrappedEOF: a reader's own error wrapping io.EOF follows the
// same rule, and its text is kept.
func TestReadFromWrappedEOF(t *testing.T) {
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: 20}, 20, intKey))
	for _, cut := range []int{0, 3, 6, 64, len(enc) - 1} {
		_, err := new(Filter[uint64]).ReadFrom(eofWrapper{bytes.NewReader(enc[:cut])})
		checkCut(t, err, cut, "wrapped EOF")
		if cut > 0 && !bytes.Contains([]byte(err.Error()), []byte("segment 3")) {
			t.Fatalf("cut at %d: %v lost the reader's text", cut, err)
		}
	}
}

// TestReadFromCleanEnd reads filters written back to back, by a Filter and
// a ConcurrentFilter alike, until the stream ends: the loop ends on io.EOF
// itself, after the last filter, and a stream cut at any other length ends
// it on an error wrapping ErrCorrupt and io.ErrUnexpectedEOF.
func TestReadFromCleanEnd(t *testing.T) {
	var stream bytes.Buffer
	ends := []int{0}
	for i, cfg := range []Config{
		{Capacity: 9, FingerprintBits: 7},
		{Capacity: 40, FingerprintBits: 13, Layout: SemiSorted, Seed: 4},
		{Capacity: 10, MaxCapacity: 80, FingerprintBits: 9},
		{Capacity: 3, FingerprintBits: 30},
	} {
		if _, err := builtFilter(t, cfg, cfg.Capacity+i, intKey).WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, stream.Len())
	}
	all := stream.Bytes()
	readers := map[string]func() io.ReaderFrom{
		"Filter":           func() io.ReaderFrom { return new(Filter[uint64]) },
		"ConcurrentFilter": func() io.ReaderFrom { return new(ConcurrentFilter[uint64]) },
	}
	for name, fresh := range readers {
		for cut := 0; cut <= len(all); cut++ {
			r := bytes.NewReader(all[:cut])
			read, at := 0, 0
			var err error
			for {
				var n int64
				if n, err = fresh().ReadFrom(r); err != nil {
					if n != int64(cut-at) {
						t.Fatalf("%s, cut at %d: the failed read counted %d of the %d bytes left", name, cut, n, cut-at)
					}
					break
				}
				read, at = read+1, at+int(n)
			}
			if boundary := slices.Index(ends, cut); boundary >= 0 {
				if err != io.EOF || read != boundary {
					t.Fatalf("%s, stream of %d filters: %d read, then %v; want io.EOF", name, boundary, read, err)
				}
			} else if !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				t.Fatalf("%s, cut at %d, inside filter %d: %v; want ErrCorrupt and io.ErrUnexpectedEOF", name, cut, read+1, err)
			}
		}
	}
}
