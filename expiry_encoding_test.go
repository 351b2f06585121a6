package cuckoo

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The encodings of expiring filters (Config.Generations): every encoder
// writes the generations and the current one, every decoder gives back the
// same filter, and a View answers as the filter does.

// expiringOp is one step of a random sequence: Insert, InsertUnique or
// Delete of key, or Advance.
type expiringOp struct {
	kind byte // 'i', 'u', 'd' or 'a'
	key  uint64
}

// expiringOps is a random sequence of n operations on keys below keys,
// advancing about once in every 20 steps.
func expiringOps(rng *rand.Rand, n, keys int) []expiringOp {
	ops := make([]expiringOp, n)
	for i := range ops {
		k := intKey(rng.IntN(keys))
		switch r := rng.IntN(20); {
		case r == 0:
			ops[i] = expiringOp{kind: 'a'}
		case r < 8:
			ops[i] = expiringOp{'i', k}
		case r < 15:
			ops[i] = expiringOp{'u', k}
		default:
			ops[i] = expiringOp{'d', k}
		}
	}
	return ops
}

// applyExpiringOps runs ops on x and returns what each answered, one line
// each.
func applyExpiringOps(x expiringFilter, ops []expiringOp) string {
	var b strings.Builder
	for _, op := range ops {
		switch op.kind {
		case 'i':
			fmt.Fprintln(&b, x.Insert(op.key))
		case 'u':
			added, err := x.InsertUnique(op.key)
			fmt.Fprintln(&b, added, err)
		case 'd':
			fmt.Fprintln(&b, x.Delete(op.key))
		case 'a':
			fmt.Fprintln(&b, x.Advance())
		}
	}
	return b.String()
}

// expiringWidths are the fingerprint widths the round trips run for gens
// generations: narrow and common widths, 16 (the widest narrow slot without
// generation bits) and the widest the generation bits allow.
func expiringWidths(gens int) []int {
	return []int{4, 8, 13, 16, maxFingerprintBits - int(genBits(uint(gens)))}
}

// encoder is a filter's encoders, Filter's or ConcurrentFilter's.
type encoder interface {
	AppendBinary([]byte) ([]byte, error)
	MarshalBinary() ([]byte, error)
	WriteTo(io.Writer) (int64, error)
	AppendText([]byte) ([]byte, error)
	MarshalText() ([]byte, error)
}

// checkEncoders fails unless every encoder of e writes enc (in base64 for
// the text encoders).
func checkEncoders(t *testing.T, e encoder, enc []byte) {
	t.Helper()
	text := base64.StdEncoding.EncodeToString(enc)
	var w bytes.Buffer
	n, werr := e.WriteTo(&w)
	app, aerr := e.AppendBinary([]byte("prefix"))
	bin, berr := e.MarshalBinary()
	txt, terr := e.MarshalText()
	atxt, aterr := e.AppendText([]byte("prefix"))
	if err := errors.Join(werr, aerr, berr, terr, aterr); err != nil {
		t.Fatalf("%T: %v", e, err)
	}
	switch {
	case n != int64(len(enc)) || !bytes.Equal(w.Bytes(), enc):
		t.Fatalf("%T.WriteTo wrote %d bytes, not the encoding", e, n)
	case string(app) != "prefix"+string(enc):
		t.Fatalf("%T.AppendBinary differs", e)
	case !bytes.Equal(bin, enc):
		t.Fatalf("%T.MarshalBinary differs", e)
	case string(txt) != text || string(atxt) != "prefix"+text:
		t.Fatalf("%T's text is not the encoding in base64", e)
	}
}

// checkSameExpiring fails unless got reports want's Len, generations,
// current generation, Config and Info, but for MaxKicks (a View has none)
// and SizeBytes (a ConcurrentFilter's memory holds versions too).
func checkSameExpiring(t *testing.T, what string, want, got interface {
	Len() int
	Generations() int
	Info() Info
	Config() Config
}) {
	t.Helper()
	wi, gi := want.Info(), got.Info()
	wi.MaxKicks, gi.MaxKicks = 0, 0
	wi.SizeBytes, gi.SizeBytes = 0, 0
	wc, gc := want.Config(), got.Config()
	wc.MaxKicks, gc.MaxKicks = 0, 0
	if got.Len() != want.Len() || got.Generations() != want.Generations() || gi != wi || gc != wc {
		t.Fatalf("%s: Len %d, Generations %d, Info %v, Config %+v; want %d, %d, %v, %+v",
			what, got.Len(), got.Generations(), gi, gc, want.Len(), want.Generations(), wi, wc)
	}
}

// TestExpiringEncodingRoundTrip encodes expiring filters of both layouts,
// several generation counts and widths every way, decodes them every way,
// and checks that what it gets is the same filter: the same answers, Len,
// generations and Config, and, given the same random operations as the
// original, the same bytes. A ConcurrentFilter's encoding continues as the
// ConcurrentFilter did.
func TestExpiringEncodingRoundTrip(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, gens := range []int{1, 2, 3, 4, 256} {
			for _, bits := range expiringWidths(gens) {
				cfg := Config{Capacity: 200, FingerprintBits: bits, Layout: layout, Generations: gens, Seed: uint64(bits)}
				t.Run(fmt.Sprintf("f=%d/G=%d", bits, gens), func(t *testing.T) {
					testExpiringRoundTrip(t, cfg, uint64(bits*1000+gens))
				})
				// Growable: two doublings, where the slots have room.
				if bits+2+int(genBits(uint(gens))) > maxFingerprintBits {
					continue
				}
				cfg.Capacity, cfg.MaxCapacity = 50, 200
				t.Run(fmt.Sprintf("f=%d/G=%d/growable", bits, gens), func(t *testing.T) {
					testExpiringRoundTrip(t, cfg, uint64(bits*1000+gens))
				})
			}
		}
	})
}

func testExpiringRoundTrip(t *testing.T, cfg Config, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	before, after := expiringOps(rng, 800, 260), expiringOps(rng, 800, 260)
	orig := mustNew[uint64](t, cfg)
	for range cfg.Generations - 3 { // G = 256: the current generation wraps in the sequence
		orig.Advance()
	}
	applyExpiringOps(orig, before)
	enc := mustMarshal(t, orig)
	if len(enc) != orig.EncodedSize() {
		t.Fatalf("%d bytes, EncodedSize %d", len(enc), orig.EncodedSize())
	}
	if n, err := EncodedLen(enc); err != nil || n != len(enc) {
		t.Fatalf("EncodedLen %d, %v; want %d", n, err, len(enc))
	}
	h, err := parseHeader(enc)
	if err != nil || h.gens != uint(cfg.Generations) || h.gen != orig.c.t.gen() || h.f != uint(cfg.FingerprintBits) {
		t.Fatalf("header: %v, G %d, generation %d, f %d; want %d, %d, %d", err, h.gens, h.gen, h.f, cfg.Generations, orig.c.t.gen(), cfg.FingerprintBits)
	}
	checkEncoders(t, orig, enc)
	checkEncoders(t, NewConcurrentFrom(orig), enc)

	// Every decoder, into a Filter.
	var unm, read, text Filter[uint64]
	if err := unm.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if n, err := read.ReadFrom(bytes.NewReader(enc)); err != nil || n != int64(len(enc)) {
		t.Fatalf("ReadFrom: %d bytes, %v", n, err)
	}
	if err := text.UnmarshalText([]byte(base64.StdEncoding.EncodeToString(enc))); err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, 400)
	for i := range keys {
		keys[i] = intKey(i)
	}
	decoded := []*Filter[uint64]{&unm, &read, &text}
	for i, d := range decoded {
		what := fmt.Sprintf("decoded %d", i)
		checkSameAnswers(t, orig, d, keys)
		checkSameExpiring(t, what, orig, d)
		if !bytes.Equal(mustMarshal(t, d), enc) {
			t.Fatalf("%s re-encodes differently", what)
		}
	}

	// Views and the encoded probes answer as the filter does, with its
	// expiring probe class.
	v, err := NewView[uint64](enc)
	if err != nil {
		t.Fatal(err)
	}
	u, err := NewViewUnverified[uint64](enc)
	if err != nil {
		t.Fatal(err)
	}
	for _, view := range []*View[uint64]{v, u} {
		checkSameAnswers(t, orig, view, keys)
		checkSameExpiring(t, "view", orig, view)
		if !sameShape(&view.r.t, &orig.c.t) {
			t.Fatalf("the view's table is %+v, the filter's %+v", view.r.t.shape, orig.c.t.shape)
		}
		if s := view.String(); cfg.Generations > 1 && !strings.Contains(s, fmt.Sprintf("%d generations", cfg.Generations)) {
			t.Fatalf("the view's String does not tell its generations: %s", s)
		}
	}
	for _, k := range keys {
		got, err := ContainsEncoded(enc, k)
		hgot, herr := ContainsHashEncoded(enc, orig.Hash(k))
		if err != nil || herr != nil || got != orig.Contains(k) || hgot != got {
			t.Fatalf("ContainsEncoded(%d) = %v (hash: %v), %v, %v; Contains %v", k, got, hgot, err, herr, orig.Contains(k))
		}
	}

	// The decoded filters continue as the original does.
	want := applyExpiringOps(orig, after)
	wantEnc := mustMarshal(t, orig)
	for i, d := range decoded {
		if got := applyExpiringOps(d, after); got != want {
			t.Fatalf("decoded %d answers the operations differently", i)
		}
		if !bytes.Equal(mustMarshal(t, d), wantEnc) {
			t.Fatalf("decoded %d, given the operations, encodes differently", i)
		}
	}

	// A ConcurrentFilter: encoded, decoded both ways, continued.
	c := mustNewConcurrent[uint64](t, cfg)
	for range cfg.Generations - 3 {
		c.Advance()
	}
	applyExpiringOps(c, before)
	cenc, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	checkEncoders(t, c, cenc)
	var cunm, cread, ctext ConcurrentFilter[uint64]
	if err := cunm.UnmarshalBinary(cenc); err != nil {
		t.Fatal(err)
	}
	if n, err := cread.ReadFrom(bytes.NewReader(cenc)); err != nil || n != int64(len(cenc)) {
		t.Fatalf("ConcurrentFilter.ReadFrom: %d bytes, %v", n, err)
	}
	if err := ctext.UnmarshalText([]byte(base64.StdEncoding.EncodeToString(cenc))); err != nil {
		t.Fatal(err)
	}
	var fromConc Filter[uint64]
	if err := fromConc.UnmarshalBinary(cenc); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if c.Contains(k) != fromConc.Contains(k) || c.Count(k) != fromConc.Count(k) {
			t.Fatalf("key %d: the ConcurrentFilter says %v, %d; the Filter of its encoding %v, %d", k, c.Contains(k), c.Count(k), fromConc.Contains(k), fromConc.Count(k))
		}
	}
	checkSameExpiring(t, "a Filter of a ConcurrentFilter's encoding", c, &fromConc)
	want = applyExpiringOps(c, after)
	wantEnc, _ = c.MarshalBinary()
	for i, d := range []*ConcurrentFilter[uint64]{&cunm, &cread, &ctext} {
		what := fmt.Sprintf("decoded ConcurrentFilter %d", i)
		checkSameExpiring(t, what, &fromConc, d)
		if got := applyExpiringOps(d, after); got != want {
			t.Fatalf("%s answers the operations differently", what)
		}
		if got, _ := d.MarshalBinary(); !bytes.Equal(got, wantEnc) {
			t.Fatalf("%s, given the operations, encodes differently", what)
		}
		checkSameAnswers(t, querier[uint64](c), querier[uint64](d), keys)
	}
}

// sameShape reports whether tables a and b are alike but for their data:
// the same geometry, probe class and generations.
func sameShape(a, b *table) bool {
	x, y := *a, *b
	x.data, y.data = nil, nil
	return reflect.DeepEqual(x, y)
}

// TestExpiringEncodingKeyed round-trips a keyed expiring filter through
// DecodeKeyed, a Filter made with its key and NewKeyedView.
func TestExpiringEncodingKeyed(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 300, FingerprintBits: 12, Layout: layout, Generations: 5, Key: [16]byte{'e', 'x', 'p'}}
		rng := rand.New(rand.NewPCG(5, 5))
		before, after := expiringOps(rng, 1000, 350), expiringOps(rng, 1000, 350)
		orig := mustNew[uint64](t, cfg)
		applyExpiringOps(orig, before)
		enc := mustMarshal(t, orig)
		dk, err := DecodeKeyed[uint64](enc, cfg.Key)
		if err != nil {
			t.Fatal(err)
		}
		made := mustNew[uint64](t, cfg)
		if err := made.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		v, err := NewKeyedView[uint64](enc, cfg.Key)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, 500)
		for i := range keys {
			keys[i] = intKey(i)
		}
		checkSameAnswers(t, orig, v, keys)
		checkSameExpiring(t, "keyed view", orig, v)
		for _, d := range []*Filter[uint64]{dk, made} {
			checkSameAnswers(t, orig, d, keys)
			checkSameExpiring(t, "keyed", orig, d)
		}
		want := applyExpiringOps(orig, after)
		for _, d := range []*Filter[uint64]{dk, made} {
			if applyExpiringOps(d, after) != want || !bytes.Equal(mustMarshal(t, d), mustMarshal(t, orig)) {
				t.Fatal("a decoded keyed filter continues differently")
			}
		}
	})
}

// TestExpiringReadFromStream reads expiring and plain encodings written
// back to back, each exactly.
func TestExpiringReadFromStream(t *testing.T) {
	a := builtExpiring(t, Config{Capacity: 100, FingerprintBits: 9, Generations: 3}, 100, 4)
	b := builtFilter(t, Config{Capacity: 100, FingerprintBits: 9}, 100, intKey)
	c := builtExpiring(t, Config{Capacity: 100, FingerprintBits: 20, Layout: SemiSorted, Generations: 256}, 100, 300)
	var stream bytes.Buffer
	for _, f := range []*Filter[uint64]{a, b, c} {
		if _, err := f.WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []*Filter[uint64]{a, b, c} {
		var got Filter[uint64]
		if _, err := got.ReadFrom(&stream); err != nil {
			t.Fatalf("filter %d: %v", i, err)
		}
		if !bytes.Equal(mustMarshal(t, &got), mustMarshal(t, want)) || got.Info() != want.Info() {
			t.Fatalf("filter %d read back differently", i)
		}
	}
	if _, err := new(Filter[uint64]).ReadFrom(&stream); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
}

// builtExpiring is a filter of the first n keys (intKey) inserted over
// advances calls of Advance, spread evenly, every seventh key refreshed
// later by InsertUnique of key i/2, and then every fifth key deleted, if
// it is still there.
func builtExpiring(tb testing.TB, cfg Config, n, advances int) *Filter[uint64] {
	tb.Helper()
	return fillExpiring(tb, mustNew[uint64](tb, cfg), n, advances)
}

// fillExpiring is builtExpiring on the empty filter f.
func fillExpiring(tb testing.TB, f *Filter[uint64], n, advances int) *Filter[uint64] {
	tb.Helper()
	done := 0
	for i := range n {
		if err := f.Insert(intKey(i)); err != nil {
			tb.Fatalf("insert %d of %d: %v", i, n, err)
		}
		if i%7 == 0 {
			if _, err := f.InsertUnique(intKey(i / 2)); err != nil {
				tb.Fatalf("InsertUnique %d: %v", i/2, err)
			}
		}
		for ; done < advances*(i+1)/n; done++ {
			f.Advance()
		}
	}
	for i := 0; i < n; i += 5 {
		f.Delete(intKey(i))
	}
	return f
}

// expiringGolden are the expiring filters whose encodings testdata/ keeps
// (builtExpiring's), beside goldenCases: both layouts, narrow and wide
// slots, and G = 256, whose count takes the field's second byte and whose
// current generation has wrapped. Adding a case and running `go test -run
// GoldenExpiring -update` adds its file. m0 and g, when set, are a growable
// case's first table and doublings, pinned as goldenCase's.
var expiringGolden = []struct {
	file        string
	cfg         Config
	n, advances int
	m0          uint64
	g           uint
}{
	{"v5-expiring-packed-f13-g4.bin", Config{Capacity: 150, FingerprintBits: 13, Generations: 4, Seed: 0xfeed}, 150, 6, 0, 0},
	{"v5-expiring-semisorted-f13-g4.bin", Config{Capacity: 150, FingerprintBits: 13, Layout: SemiSorted, Generations: 4, Seed: 0xfeed}, 150, 6, 0, 0},
	{"v5-expiring-packed-f8-g2.bin", Config{Capacity: 100, FingerprintBits: 8, Generations: 2}, 100, 3, 0, 0},
	{"v5-expiring-packed-f24-g256.bin", Config{Capacity: 80, FingerprintBits: 24, Generations: 256, MaxKicks: 50}, 80, 300, 0, 0},
	// Growable: after one of two doublings, and after both.
	{"v5-expiring-growable-packed-f13-g4.bin", Config{Capacity: 40, MaxCapacity: 400, FingerprintBits: 13, Generations: 4, Seed: 0xfeed}, 190, 6, 28, 2},
	{"v5-expiring-growable-semisorted-f12-g3.bin", Config{Capacity: 40, MaxCapacity: 400, FingerprintBits: 12, Layout: SemiSorted, Generations: 3}, 400, 4, 28, 2},
}

// TestGoldenExpiring checks the expiring golden files: each is the filter
// built from its case on this host, decodes and opens as a View answering
// like it, with its generations, and re-encodes to the same bytes.
func TestGoldenExpiring(t *testing.T) {
	for _, c := range expiringGolden {
		t.Run(c.file, func(t *testing.T) {
			f := mustNew[uint64](t, c.cfg)
			if c.g != 0 {
				pinFirst(&f.c, c.m0, c.g)
			}
			built := fillExpiring(t, f, c.n, c.advances)
			golden := goldenBytes(t, c.file, mustMarshal(t, built))
			le := binary.LittleEndian
			if g, gen := le.Uint16(golden[offGenerations:]), le.Uint32(golden[offGeneration:]); int(g) != c.cfg.Generations || int(gen) != c.advances%c.cfg.Generations {
				t.Fatalf("generations %d, current %d; want %d, %d", g, gen, c.cfg.Generations, c.advances%c.cfg.Generations)
			}
			var dec Filter[uint64]
			if err := dec.UnmarshalBinary(golden); err != nil {
				t.Fatal(err)
			}
			view, err := NewView[uint64](golden)
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]uint64, 2000)
			for i := range keys {
				keys[i] = intKey(i)
			}
			checkSameAnswers(t, built, &dec, keys)
			checkSameAnswers(t, built, view, keys)
			checkSameExpiring(t, "decoded", built, &dec)
			checkSameExpiring(t, "view", built, view)
			// The keys inserted or refreshed in the last G generations and
			// not deleted are found.
			for i := range c.n {
				last := i
				for _, j := range []int{2 * i, 2*i + 1} {
					if j < c.n && j%7 == 0 {
						last = j // refreshed after key j was inserted
					}
				}
				touched := c.advances * last / c.n // the generation of its last touch
				if c.advances-touched < c.cfg.Generations && i%5 != 0 && !view.Contains(intKey(i)) {
					t.Fatalf("live key %d lost", i)
				}
			}
			if !bytes.Equal(mustMarshal(t, &dec), golden) {
				t.Fatal("re-encoding differs")
			}
		})
	}
}

// addExpiringFormatSeeds adds expiring encodings to a format fuzz target's
// seeds: the golden files and small filters of both layouts, several widths
// and generation counts, some of whose keys have expired.
func addExpiringFormatSeeds(f *testing.F) {
	for _, c := range expiringGolden {
		if b, err := os.ReadFile(filepath.Join("testdata", c.file)); err == nil {
			f.Add(b)
		}
	}
	for _, l := range layouts {
		for _, c := range []struct{ bits, gens int }{{4, 2}, {8, 4}, {13, 3}, {12, 1}, {16, 256}, {24, 256}} {
			cfg := Config{Capacity: 8, FingerprintBits: c.bits, Layout: l, Generations: c.gens}
			f.Add(mustMarshal(f, builtExpiring(f, cfg, 8, c.gens+1)))
			f.Add(mustMarshal(f, builtExpiring(f, cfg, 3, 0)))
		}
	}
}

// TestExpiringEncodingChecks makes expiring encodings that are wrong in one
// way each, with a valid checksum, and checks the error and what it says.
func TestExpiringEncodingChecks(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		orig := builtExpiring(t, Config{Capacity: 100, FingerprintBits: 13, Layout: layout, Generations: 3}, 100, 5)
		if orig.c.t.gen() != 2 {
			t.Fatalf("generation %d; the test wants the last, 2", orig.c.t.gen())
		}
		enc := mustMarshal(t, orig)
		le := binary.LittleEndian
		put8 := func(off int, v uint8) func([]byte) { return func(b []byte) { b[off] = v } }
		put16 := func(off int, v uint16) func([]byte) { return func(b []byte) { le.PutUint16(b[off:], v) } }
		put32 := func(off int, v uint32) func([]byte) { return func(b []byte) { le.PutUint32(b[off:], v) } }
		// editSlot sets the first occupied slot's value to edit(value).
		editSlot := func(edit func(v uint32) uint32) func([]byte) {
			return func(b []byte) {
				h, err := parseHeader(b)
				if err != nil {
					panic(err)
				}
				tb := h.shape()
				tb.data = b[headerSize : len(b)-checksumSize]
				for i := range tb.m {
					s := tb.bucketSlots(i)
					for k, v := range s {
						if v != 0 {
							s[k] = edit(v)
							lo, hi := tb.encode(s)
							tb.setBucket(i, lo, hi)
							return
						}
					}
				}
				panic("no occupied slot")
			}
		}
		cases := []struct {
			name string
			edit func([]byte)
			want error
			says string
		}{
			{"G 257", put16(offGenerations, 257), ErrCorrupt, "257 generations"},
			{"G 0x8003", put16(offGenerations, 0x8003), ErrCorrupt, "generations"},
			{"G 0", put16(offGenerations, 0), ErrCorrupt, "current generation 2 in a filter whose keys never expire"},
			{"G 2", put16(offGenerations, 2), ErrCorrupt, "current generation 2 of 2"},
			{"current generation G", put32(offGeneration, 3), ErrCorrupt, "current generation 3 of 3"},
			{"current generation 2^32-1", put32(offGeneration, 1<<32-1), ErrCorrupt, "current generation"},
			{"stage past the doublings", put8(offStage, 1), ErrCorrupt, "stage 1 past the filter's last, 0"},
			{"too wide", put8(offBits, 31), ErrCorrupt, "slots would exceed 32 bits"},
			{"reserved byte", put8(offReserved1, 1), ErrCorrupt, "reserved"},
			{"slot of generation G", editSlot(func(v uint32) uint32 { return v&(1<<13-1) | 3<<13 }), ErrCorrupt, "of generation 3, of 3 generations"},
			{"slot without a fingerprint", editSlot(func(v uint32) uint32 { return 1 << 13 }), ErrCorrupt, "holds fingerprint 0"},
		}
		for _, c := range cases {
			bad := reseal(func() []byte { b := bytes.Clone(enc); c.edit(b); return b }())
			err := new(Filter[uint64]).UnmarshalBinary(bad)
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.says) {
				t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
			}
			if _, verr := NewView[uint64](bad); fmt.Sprint(verr) != fmt.Sprint(err) {
				t.Errorf("%s: NewView %v, UnmarshalBinary %v", c.name, verr, err)
			}
			if _, cerr := ContainsEncoded(bad, uint64(1)); strings.HasPrefix(c.name, "slot") != (cerr == nil) {
				// The encoded probe checks the header, not the table.
				t.Errorf("%s: ContainsEncoded %v", c.name, cerr)
			}
		}
		// A header that describes another expiring filter with the same
		// slots is that filter: G = 4 has 2 generation bits too.
		other := reseal(func() []byte { b := bytes.Clone(enc); put16(offGenerations, 4)(b); return b }())
		var g Filter[uint64]
		if err := g.UnmarshalBinary(other); err != nil || g.Generations() != 4 {
			t.Fatalf("G = 4 over the same slots: %v, Generations %d", err, g.Generations())
		}
	})
}

// TestExpiringViewBatches checks, under every probe implementation, that
// a View of an expiring encoding answers batches as the filter answers
// single lookups, live, expired and absent keys alike.
func TestExpiringViewBatches(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		forEachLayout(t, func(t *testing.T, layout Layout) {
			for _, c := range []struct{ bits, gens int }{{8, 2}, {13, 4}, {16, 4}, {12, 256}, {28, 16}} {
				cfg := Config{Capacity: 500, FingerprintBits: c.bits, Layout: layout, Generations: c.gens}
				orig := builtExpiring(t, cfg, 500, c.gens+2)
				v, err := NewView[uint64](mustMarshal(t, orig))
				if err != nil {
					t.Fatal(err)
				}
				keys := make([]uint64, 2000) // the 500 keys, then absent ones
				hashes := make([]uint64, len(keys))
				for i := range keys {
					keys[i] = intKey(i)
					hashes[i] = orig.Hash(keys[i])
				}
				found, hfound := make([]bool, len(keys)), make([]bool, len(keys))
				n, hn := v.ContainsBatch(keys, found), v.ContainsHashBatch(hashes, hfound)
				want := 0
				for i, k := range keys {
					w := orig.Contains(k)
					if w {
						want++
					}
					if found[i] != w || hfound[i] != w {
						t.Fatalf("f=%d G=%d key %d: batches say %v, %v; Contains %v", c.bits, c.gens, i, found[i], hfound[i], w)
					}
				}
				if n != want || hn != want {
					t.Fatalf("f=%d G=%d: batches found %d, %d; want %d", c.bits, c.gens, n, hn, want)
				}
			}
		})
	})
}

// TestExpiringEncodingAllocs checks that the encoders with room, the
// view's queries and the encoded probes allocate nothing for an expiring
// filter.
func TestExpiringEncodingAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := builtExpiring(t, Config{Capacity: 300, FingerprintBits: 13, Layout: layout, Generations: 4}, 300, 5)
		enc := mustMarshal(t, f)
		v, err := NewView[uint64](enc)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, len(enc))
		keys, found := []uint64{intKey(1), intKey(2), intKey(1000)}, make([]bool, 3)
		ops := map[string]func(){
			"AppendBinary":        func() { buf, _ = f.AppendBinary(buf[:0]) },
			"View.Contains":       func() { v.Contains(intKey(7)) },
			"View.Count":          func() { v.Count(intKey(7)) },
			"View.ContainsBatch":  func() { v.ContainsBatch(keys, found) },
			"ContainsEncoded":     func() { _, _ = ContainsEncoded(enc, intKey(7)) },
			"ContainsHashEncoded": func() { _, _ = ContainsHashEncoded(enc, 7) },
			"EncodedLen":          func() { _, _ = EncodedLen(enc) },
		}
		for name, op := range ops {
			if a := testing.AllocsPerRun(100, op); a != 0 {
				t.Errorf("%s: %v allocations", name, a)
			}
		}
	})
}
