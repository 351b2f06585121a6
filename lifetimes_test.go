package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// lifeFilter is what the lifetime tests drive: a Filter or a
// ConcurrentFilter.
type lifeFilter interface {
	Insert(uint64) error
	InsertFor(uint64, int) error
	InsertUniqueFor(uint64, int) (bool, error)
	Contains(uint64) bool
	Count(uint64) int
	Delete(uint64) bool
	Advance() int
	Len() int
	MarshalBinary() ([]byte, error)
}

// forEachLifeFilter runs fn on a new Filter and a new ConcurrentFilter of
// cfg in each layout.
func forEachLifeFilter(t *testing.T, cfg Config, fn func(t *testing.T, f lifeFilter)) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		c := cfg
		c.Layout = layout
		t.Run("Filter", func(t *testing.T) { fn(t, mustNew[uint64](t, c)) })
		t.Run("ConcurrentFilter", func(t *testing.T) { fn(t, mustNewConcurrent[uint64](t, c)) })
	})
}

// TestInsertForLives checks that a key inserted for ticks lives at least
// ticks-1 and at most ticks calls of Advance, for every ticks in 1..G and
// every current generation, and that InsertFor(key, G) stores what
// Insert(key) does.
func TestInsertForLives(t *testing.T) {
	for _, gens := range []int{1, 2, 4, 5, 16} {
		forEachLifeFilter(t, Config{Capacity: 100, Generations: gens}, func(t *testing.T, f lifeFilter) {
			for start := range gens + 1 { // every current generation, and one wrap
				for ticks := 1; ticks <= gens; ticks++ {
					key := intKey(start*100 + ticks)
					if err := f.InsertFor(key, ticks); err != nil {
						t.Fatalf("G %d, InsertFor(%d): %v", gens, ticks, err)
					}
					for a := 1; a <= ticks; a++ {
						f.Advance()
						if live := a < ticks; f.Contains(key) != live || f.Len() != b2i(live) {
							t.Fatalf("G %d, ticks %d: after %d calls of Advance, Contains %v, Len %d", gens, ticks, a, f.Contains(key), f.Len())
						}
					}
				}
				f.Advance()
			}
		})
	}
	// InsertFor(key, G) is Insert(key), byte for byte, beside other lifetimes.
	for _, layout := range layouts {
		cfg := Config{Capacity: 2000, MaxCapacity: 16000, Generations: 6, Layout: layout}
		a, b := mustNew[uint64](t, cfg), mustNew[uint64](t, cfg)
		for i := range 6000 {
			if i%300 == 0 {
				a.Advance()
				b.Advance()
			}
			ticks := 1 + i%5
			if i%2 == 0 {
				mustInsert(t, a.Insert(intKey(i)))
				mustInsert(t, b.InsertFor(intKey(i), cfg.Generations))
			} else {
				mustInsert(t, a.InsertFor(intKey(i), ticks))
				mustInsert(t, b.InsertFor(intKey(i), ticks))
			}
		}
		if !bytes.Equal(mustMarshal(t, a), mustMarshal(t, b)) {
			t.Fatalf("%v: InsertFor(key, G) stored other bytes than Insert(key)", layout)
		}
	}
}

func mustInsert(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// TestInsertUniqueForNeverShortens checks InsertUniqueFor of a present key:
// a shorter lifetime leaves its life as it was, a longer one lengthens it
// to ticks; an absent key is inserted for ticks.
func TestInsertUniqueForNeverShortens(t *testing.T) {
	const gens = 6
	forEachLifeFilter(t, Config{Capacity: 100, Generations: gens}, func(t *testing.T, f lifeFilter) {
		for first := 1; first <= gens; first++ {
			for second := 1; second <= gens; second++ {
				for wait := 0; wait < first; wait++ { // refreshed wait ticks after its insert
					key := intKey(first*1000 + second*100 + wait)
					if added, err := f.InsertUniqueFor(key, first); !added || err != nil {
						t.Fatalf("InsertUniqueFor of a new key: %v, %v", added, err)
					}
					for range wait {
						f.Advance()
					}
					if added, err := f.InsertUniqueFor(key, second); added || err != nil {
						t.Fatalf("InsertUniqueFor of a present key: %v, %v", added, err)
					}
					life := max(first-wait, second) // what it has left
					for a := 1; a <= life; a++ {
						f.Advance()
						if live := a < life; f.Contains(key) != live {
							t.Fatalf("for %d, %d ticks later for %d: after %d more calls of Advance, Contains %v; want %v",
								first, wait, second, a, !live, live)
						}
					}
					if f.Len() != 0 {
						t.Fatalf("Len %d with no key live", f.Len())
					}
				}
			}
		}
	})
}

// TestInsertForErrors checks that ticks outside 1..G, or a filter whose
// keys never expire, give ErrLifetime and change nothing, and that a zero
// filter gives ErrIncompatible.
func TestInsertForErrors(t *testing.T) {
	for _, cfg := range []Config{{Capacity: 100, Generations: 4}, {Capacity: 100}, {Capacity: 100, MaxCapacity: 800}} {
		forEachLifeFilter(t, cfg, func(t *testing.T, f lifeFilter) {
			mustInsert(t, f.Insert(1))
			before, _ := f.MarshalBinary()
			for _, ticks := range []int{-1, 0, cfg.Generations + 1, math.MaxInt} {
				if ticks >= 1 && ticks <= cfg.Generations {
					continue
				}
				err := f.InsertFor(2, ticks)
				added, uerr := f.InsertUniqueFor(2, ticks)
				if !errors.Is(err, ErrLifetime) || !errors.Is(uerr, ErrLifetime) || added {
					t.Fatalf("%+v, ticks %d: InsertFor %v, InsertUniqueFor %v, %v", cfg, ticks, err, added, uerr)
				}
			}
			if cfg.Generations == 0 {
				if err := f.InsertFor(2, 1); !errors.Is(err, ErrLifetime) {
					t.Fatalf("%+v: InsertFor(key, 1): %v", cfg, err)
				}
			}
			if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
				t.Fatalf("%+v: a failed InsertFor changed the filter", cfg)
			}
		})
	}
	var zero Filter[uint64]
	var czero ConcurrentFilter[uint64]
	_, uerr := zero.InsertUniqueFor(1, 1)
	_, cuerr := czero.InsertUniqueFor(1, 1)
	for _, err := range []error{zero.InsertFor(1, 1), uerr, czero.InsertFor(1, 1), cuerr} {
		if !errors.Is(err, ErrIncompatible) {
			t.Fatalf("zero filter: %v", err)
		}
	}
}

// TestModelLifetimes runs random inserts of random lifetimes (InsertFor,
// InsertUniqueFor, Insert), deletes and Advances on expiring filters,
// growable or not, against an exact model of each key's copies and their
// lives: no false negative, Len exact (but for the keys InsertUniqueFor
// took for present, which the model counts as it does), and no key found
// after its life at more than a false positive's rate.
func TestModelLifetimes(t *testing.T) {
	for _, cfg := range []Config{
		{Capacity: 3000, Generations: 5},
		{Capacity: 500, MaxCapacity: 8000, Generations: 7},
		{Capacity: 500, MaxCapacity: 8000, Generations: 4, FingerprintBits: 20},
	} {
		forEachLifeFilter(t, cfg, func(t *testing.T, f lifeFilter) {
			n := 20_000
			if _, conc := f.(*ConcurrentFilter[uint64]); conc && (testing.Short() || raceEnabled) {
				n = 8_000 // each InsertFor takes every stripe's lock
			}
			testModelLifetimes(t, f, cfg.Generations, n)
		})
	}
}

// testModelLifetimes is TestModelLifetimes on f, of G generations, for n
// operations; it returns the model's live keys at the end.
func testModelLifetimes(t *testing.T, f lifeFilter, gens, n int) map[uint64][]int {
	rng := rand.New(rand.NewPCG(uint64(gens), uint64(n)))
	lives := map[uint64][]int{} // key -> each copy's Advance calls left
	count := 0
	pool := distinctKeys(f, n/2)
	for op := range n {
		key := pool[rng.IntN(len(pool))]
		advance := 2 // in 100; none in the first 2,000 of each 4,000, a burst to double for
		if op%4000 < 2000 {
			advance = 0
		}
		switch r := rng.IntN(100); {
		case r < advance:
			f.Advance()
			for k, ls := range lives {
				kept := ls[:0]
				for _, l := range ls {
					if l > 1 {
						kept = append(kept, l-1)
					}
				}
				count -= len(ls) - len(kept)
				if lives[k] = kept; len(kept) == 0 {
					delete(lives, k)
				}
			}
		case r < 40:
			ticks := 1 + rng.IntN(gens)
			if err := f.InsertFor(key, ticks); err == nil {
				lives[key] = append(lives[key], ticks)
				count++
			} else if !errors.Is(err, ErrTooManyDuplicates) {
				t.Fatalf("op %d: InsertFor: %v", op, err)
			}
		case r < 80:
			ticks := 1 + rng.IntN(gens)
			added, err := f.InsertUniqueFor(key, ticks)
			switch {
			case err != nil:
				t.Fatalf("op %d: InsertUniqueFor: %v", op, err)
			case added:
				lives[key] = append(lives[key], ticks)
				count++
			case len(lives[key]) > 0: // the longest-lived copy gets ticks if it has less
				ls := lives[key]
				i := 0
				for j, l := range ls {
					if l > ls[i] {
						i = j
					}
				}
				ls[i] = max(ls[i], ticks)
			default:
				// A false positive: another key's copy stands for key.
			}
		case r < 90:
			if len(lives[key]) > 0 {
				if !f.Delete(key) {
					t.Fatalf("op %d: Delete of a live key found none", op)
				}
				ls := lives[key] // the copy with the least life left goes
				i := 0
				for j, l := range ls {
					if l < ls[i] {
						i = j
					}
				}
				ls[i] = ls[len(ls)-1]
				if lives[key] = ls[:len(ls)-1]; len(lives[key]) == 0 {
					delete(lives, key)
				}
				count--
			}
		default:
			if err := f.Insert(key); err == nil {
				lives[key] = append(lives[key], gens)
				count++
			} else if !errors.Is(err, ErrTooManyDuplicates) {
				t.Fatalf("op %d: Insert: %v", op, err)
			}
		}
		if op%500 == 0 || op == n-1 {
			checkLives(t, f, lives, count, fmt.Sprintf("op %d", op))
		}
	}
	return lives
}

// distinctKeys returns up to n keys (intKey) of which no two are one key
// to f: none shares another's fingerprint, buckets and layers, at any
// stage. Colliding keys share their copies (generations.go), which the
// lifetime model, a key's own copies, does not follow.
func distinctKeys(f lifeFilter, n int) []uint64 {
	hash, t := lifeTable(f)
	seen := map[[3]uint64]bool{}
	var keys []uint64
	for i := range n {
		h := hash(intKey(i))
		fp, i1 := t.locate(h)
		i2 := t.alt(i1, fp)
		l1, l2 := uint64(0), uint64(0)
		if t.g > 0 {
			a, b := t.layers(h, fp)
			l1, l2 = uint64(a), uint64(b)
		}
		p, q := i1<<32|l1, i2<<32|l2
		class := [3]uint64{uint64(fp), min(p, q), max(p, q)}
		if !seen[class] {
			seen[class] = true
			keys = append(keys, intKey(i))
		}
	}
	return keys
}

// lifeTable returns f's hash and its table, whose base buckets, widths and
// doublings, which distinctKeys reads, never change.
func lifeTable(f lifeFilter) (func(uint64) uint64, *table) {
	switch f := f.(type) {
	case *Filter[uint64]:
		return f.Hash, &f.c.t
	case *ConcurrentFilter[uint64]:
		return f.Hash, &f.c.cur.Load().t
	case *halvingWatch:
		return lifeTable(f.lifeFilter)
	}
	panic("lifeTable: " + fmt.Sprintf("%T", f))
}

// checkLives checks f against the model: every live key found, Len the
// copies the model holds.
func checkLives(t *testing.T, f lifeFilter, lives map[uint64][]int, count int, at string) {
	t.Helper()
	for k := range lives {
		if !f.Contains(k) {
			t.Fatalf("%s: a live key is missing", at)
		}
	}
	if f.Len() != count {
		t.Fatalf("%s: Len %d, the model holds %d copies", at, f.Len(), count)
	}
}
