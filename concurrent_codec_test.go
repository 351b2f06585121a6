package cuckoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// holder is a struct a user marshals to JSON with a filter in it.
type holder struct {
	Name   string
	Filter *ConcurrentFilter[string]
}

// TestConcurrentJSON round-trips a struct holding a *ConcurrentFilter
// through encoding/json for every layout, grown and keyed, and checks the
// decoded filter's answers, Len and encoding against the original's.
func TestConcurrentJSON(t *testing.T) {
	key := [16]byte{1, 2, 3}
	cases := map[string]Config{
		"fixed":  {Capacity: 2000, FingerprintBits: 12},
		"grown":  {Capacity: 100, MaxCapacity: 4000, FingerprintBits: 12},
		"keyed":  {Capacity: 2000, FingerprintBits: 12, Key: key},
		"seeded": {Capacity: 2000, FingerprintBits: 20, Seed: 7},
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for name, cfg := range cases {
			t.Run(name, func(t *testing.T) {
				cfg.Layout = layout
				c := mustNewConcurrent[string](t, cfg)
				keys := make([]string, 1500)
				for i := range keys {
					keys[i] = "key-" + string(rune('a'+i%26)) + string(rune(i))
					if err := c.Insert(keys[i]); err != nil {
						t.Fatal(err)
					}
				}
				if name == "grown" && c.Slots() <= 400 {
					t.Fatalf("did not grow: %d slots", c.Slots())
				}
				text, err := json.Marshal(holder{Name: "x", Filter: c})
				if err != nil {
					t.Fatal(err)
				}
				var back holder
				if cfg.Key != ([16]byte{}) {
					// A keyed filter decodes into one made with its key.
					back.Filter = mustNewConcurrent[string](t, Config{Capacity: 1, Key: key})
					var zero holder
					if err := json.Unmarshal(text, &zero); !errors.Is(err, ErrIncompatible) {
						t.Fatalf("keyed text into a zero ConcurrentFilter: %v, want ErrIncompatible", err)
					}
				}
				if err := json.Unmarshal(text, &back); err != nil {
					t.Fatal(err)
				}
				if back.Filter.Len() != c.Len() || back.Filter.Slots() != c.Slots() {
					t.Fatalf("Len %d Slots %d, want %d %d", back.Filter.Len(), back.Filter.Slots(), c.Len(), c.Slots())
				}
				for _, k := range keys {
					if !back.Filter.Contains(k) {
						t.Fatalf("false negative %q after the JSON round trip", k)
					}
				}
				a, _ := c.MarshalBinary()
				b, _ := back.Filter.MarshalBinary()
				if !bytes.Equal(a, b) {
					t.Fatal("the decoded filter encodes differently")
				}
				// It keeps working as the original: the same insert gives the same bytes.
				if err, err2 := c.Insert("more"), back.Filter.Insert("more"); err != nil || err2 != nil {
					t.Fatal(err, err2)
				}
				a, _ = c.MarshalBinary()
				b, _ = back.Filter.MarshalBinary()
				if !bytes.Equal(a, b) {
					t.Fatal("the decoded filter diverged after an insert")
				}
			})
		}
	})
}

// TestConcurrentUnmarshalOneTable checks that UnmarshalBinary allocates
// the table once: the bytes allocated are within 1.1x SizeBytes.
func TestConcurrentUnmarshalOneTable(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		f := mustNew[uint64](t, Config{Capacity: 1 << 20, Layout: layout})
		for i := range uint64(1 << 19) {
			if err := f.Insert(i); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := f.MarshalBinary()
		var c ConcurrentFilter[uint64]
		checkOneTable(t, "UnmarshalBinary", &c, func() error { return c.UnmarshalBinary(data) })
		for i := range uint64(1 << 19) {
			if !c.Contains(i) {
				t.Fatalf("false negative %d", i)
			}
		}
	})
}

// TestConcurrentMergeOneTable checks that Merge into a ConcurrentFilter
// allocates one table, the copy it merges into and publishes: the bytes
// allocated are within 1.1x SizeBytes.
func TestConcurrentMergeOneTable(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		cfg := Config{Capacity: 1 << 20, Layout: layout}
		c := mustNewConcurrent[uint64](t, cfg)
		o := mustNew[uint64](t, cfg)
		for i := range uint64(1 << 10) {
			if err := o.Insert(i); err != nil {
				t.Fatal(err)
			}
		}
		checkOneTable(t, "Merge", c, func() error { return c.Merge(o) })
		for i := range uint64(1 << 10) {
			if !c.Contains(i) {
				t.Fatalf("false negative %d", i)
			}
		}
	})
}

// checkOneTable runs op, which must succeed, and fails if it allocated
// more than 1.1x c's SizeBytes after it: one table's worth.
func checkOneTable(t *testing.T, name string, c *ConcurrentFilter[uint64], op func() error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := op(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	if limit := 1.1 * float64(c.SizeBytes()); float64(got) > limit {
		t.Fatalf("%s allocated %d bytes for a %d-byte table", name, got, c.SizeBytes())
	}
}

// TestConcurrentReadFrom reads concurrent filters back to back from one
// stream, and refuses a cut one.
func TestConcurrentReadFrom(t *testing.T) {
	var stream bytes.Buffer
	var want []*Filter[uint64]
	for i, layout := range layouts {
		f := mustNew[uint64](t, Config{Capacity: 1000 * (i + 1), Layout: layout, MaxCapacity: 8000 * (i + 1)})
		for k := range uint64(3000) {
			f.Insert(k * uint64(i+1))
		}
		f.WriteTo(&stream)
		want = append(want, f)
	}
	all := bytes.Clone(stream.Bytes())
	for i, f := range want {
		var c ConcurrentFilter[uint64]
		n, err := c.ReadFrom(&stream)
		if err != nil || n != int64(f.EncodedSize()) {
			t.Fatalf("filter %d: ReadFrom = %d, %v", i, n, err)
		}
		for k := range uint64(3000) {
			if !c.Contains(k * uint64(i+1)) {
				t.Fatalf("filter %d: false negative %d", i, k)
			}
		}
	}
	var c ConcurrentFilter[uint64]
	if _, err := c.ReadFrom(bytes.NewReader(all[:100])); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("cut stream: %v", err)
	}
	if c.Len() != 0 || c.Contains(1) {
		t.Fatal("a failed ReadFrom changed the zero filter")
	}
}

// TestConcurrentClone checks that a clone answers as the original and that
// the two change independently.
func TestConcurrentClone(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		c := mustNewConcurrent[uint64](t, Config{Capacity: 500, MaxCapacity: 5000, Layout: layout})
		for k := range uint64(2000) {
			c.Insert(k)
		}
		d := c.Clone()
		a, _ := c.MarshalBinary()
		b, _ := d.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatal("the clone encodes differently")
		}
		d.Delete(1)
		c.Insert(99999)
		if !c.Contains(1) || d.Len() != 1999 || c.Len() != 2001 {
			t.Fatalf("clone and original share state: %d %d", c.Len(), d.Len())
		}
		var zero ConcurrentFilter[uint64]
		if z := zero.Clone(); z.Len() != 0 {
			t.Fatal("clone of a zero filter")
		}
	})
}

// TestConcurrentMerge merges filters into a ConcurrentFilter while readers
// look up keys stored before the merge: no false negative at any time
// (run it under -race), every merged key present after, and an error leaves
// the filter as it was.
func TestConcurrentMerge(t *testing.T) {
	t.Parallel()
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, cfg := range []Config{
			{Capacity: 20000, Layout: layout},
			{Capacity: 1000, MaxCapacity: 40000, Layout: layout}, // Merge grows it
		} {
			c := mustNewConcurrent[uint64](t, cfg)
			for k := range uint64(800) {
				if err := c.Insert(k); err != nil {
					t.Fatal(err)
				}
			}
			var stop atomic.Bool
			var misses atomic.Int64
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						for k := range uint64(800) {
							if !c.Contains(k) {
								misses.Add(1)
							}
						}
					}
				}()
			}
			for part := range uint64(8) {
				o := mustNew[uint64](t, cfg)
				for k := range uint64(1000) {
					if err := o.Insert(100000 + part*1000 + k); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Merge(o); err != nil {
					t.Fatal(err)
				}
			}
			stop.Store(true)
			wg.Wait()
			if misses.Load() != 0 {
				t.Fatalf("%d false negatives during Merge", misses.Load())
			}
			if c.Len() != 800+8000 {
				t.Fatalf("Len %d after the merges", c.Len())
			}
			for k := range uint64(8000) {
				if !c.Contains(100000 + k) {
					t.Fatalf("merged key %d missing", k)
				}
			}
			// Errors: an incompatible filter, and one that does not fit.
			before, _ := c.MarshalBinary()
			other := mustNew[uint64](t, Config{Capacity: 20000, FingerprintBits: 9, Layout: layout})
			if err := c.Merge(other); !errors.Is(err, ErrIncompatible) {
				t.Fatalf("incompatible Merge: %v", err)
			}
			if err := c.Merge(nil); !errors.Is(err, ErrIncompatible) {
				t.Fatalf("Merge(nil): %v", err)
			}
			if cfg.MaxCapacity == 0 {
				big := mustNew[uint64](t, cfg)
				for k := uint64(0); big.Insert(500000+k) == nil; k++ {
				}
				if err := c.Merge(big); !errors.Is(err, ErrFull) {
					t.Fatalf("Merge of a full filter: %v", err)
				}
			}
			after, _ := c.MarshalBinary()
			if !bytes.Equal(before, after) {
				t.Fatal("a failed Merge changed the filter")
			}
		}
	})
}

// TestZeroConcurrent checks that every method that needs a table returns
// an error on a zero ConcurrentFilter instead of panicking.
func TestZeroConcurrentCodec(t *testing.T) {
	var c ConcurrentFilter[uint64]
	if _, err := c.MarshalText(); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("MarshalText: %v", err)
	}
	if _, err := c.MarshalBinary(); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("MarshalBinary: %v", err)
	}
	if _, err := c.AppendBinary(nil); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("AppendBinary: %v", err)
	}
	if _, err := c.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("WriteTo: %v", err)
	}
	if err := c.Merge(mustNew[uint64](t, Config{Capacity: 10})); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Merge: %v", err)
	}
	if s := c.Snapshot(); s.Len() != 0 {
		t.Fatal("Snapshot of a zero filter")
	}
	if err := c.UnmarshalText([]byte("!!")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("UnmarshalText of non-base64: %v", err)
	}
}
