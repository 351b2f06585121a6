package cuckoo

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// TestSearchPaths checks that search reaches the nodes searchAny, the
// reference, reaches, and the paths the concurrent filter's search returns
// on full tables of several sizes, down to a few buckets, where it keeps
// meeting buckets it has reached already: a path visits no bucket twice,
// starts at one of the key's buckets, each of its nodes is the other bucket
// of the value it takes from its parent's recorded slot, and its last
// bucket has a free slot. A failed search stayed within its budget and
// passed no bucket with a free slot.
func TestSearchPaths(t *testing.T) {
	for _, layout := range layouts {
		for _, capacity := range []int{4, 30, 500} {
			for _, kicks := range []int{1, 3, DefaultMaxKicks} {
				for _, f := range []int{8, 13, 16} {
					t.Run(fmt.Sprintf("%v/%d/kicks=%d/f=%d", layout, capacity, kicks, f), func(t *testing.T) {
						testSearchPaths(t, Config{Capacity: capacity, Layout: layout, FingerprintBits: f, MaxKicks: kicks})
					})
				}
			}
		}
	}
}

func testSearchPaths(t *testing.T, cfg Config) {
	c := mustNewConcurrent[uint64](t, cfg)
	for k := uint64(0); k < 10*uint64(cfg.Capacity); k++ {
		if c.Insert(k) != nil {
			break
		}
	}
	s := c.c.cur.Load()
	tb := &s.t
	found, failed := 0, 0
	for k := uint64(1 << 40); found+failed < 200 && k < 1<<40+100_000; k++ {
		fp, i1 := tb.locate(c.Hash(k))
		i2 := tb.alt(i1, fp)
		if tb.hasFree(i1) || tb.hasFree(i2) {
			continue
		}
		q, end := s.search(make([]pathNode, 0, searchBuckets*cfg.MaxKicks+2), cfg.MaxKicks, i1, fp, i2, fp)
		ref := make([]pathNode, searchBuckets*cfg.MaxKicks+2)
		ref[0], ref[1] = q[0], q[1]
		if ref, refEnd := s.searchAny(ref); refEnd != end || !slices.Equal(ref, q) {
			t.Fatalf("search reached %d nodes, end %d; the reference %d, end %d", len(q), end, len(ref), refEnd)
		}
		if end < 0 {
			failed++
			for _, n := range q {
				if tb.hasFree(uint64(n.b)) {
					t.Fatalf("a failed search passed bucket %d, which has a free slot", n.b)
				}
			}
			if len(q) > searchBuckets*cfg.MaxKicks+2 {
				t.Fatalf("a failed search reached %d nodes, budget %d", len(q), searchBuckets*cfg.MaxKicks)
			}
			continue
		}
		found++
		if !tb.hasFree(uint64(q[end].b)) {
			t.Fatalf("the path ends in bucket %d, which is full", q[end].b)
		}
		seen := map[uint32]bool{}
		for n := q[end]; ; n = q[n.parent] {
			if seen[n.b] {
				t.Fatalf("the path visits bucket %d twice", n.b)
			}
			seen[n.b] = true
			if n.parent < 0 {
				if uint64(n.b) != i1 && uint64(n.b) != i2 || n.v != fp {
					t.Fatalf("the path starts at bucket %d with %#x, not the key's", n.b, n.v)
				}
				break
			}
			p := q[n.parent]
			if v := tb.bucketSlots(uint64(p.b))[n.slot]; v != n.v || tb.alt(uint64(p.b), v) != uint64(n.b) {
				t.Fatalf("node (bucket %d, %#x) from slot %d of bucket %d, which holds %#x", n.b, n.v, n.slot, p.b, v)
			}
		}
	}
	if found+failed == 0 {
		t.Fatal("no key whose buckets are both full")
	}
}

// TestMoveNear checks the written-out one-step displacement against the
// search it stands in for: on tables of both layouts filled to capacity, for keys whose
// two buckets are full, moveNear succeeds exactly when search finds a path
// of one step, and then leaves the table's words as apply leaves them on a
// copy; when it fails it has written nothing.
func TestMoveNear(t *testing.T) {
	t.Parallel()
	for _, layout := range layouts {
		for _, f := range []int{4, 8, 13, 16} {
			t.Run(fmt.Sprintf("%v/f=%d", layout, f), func(t *testing.T) {
				testMoveNear(t, Config{Capacity: 2000, FingerprintBits: f, Layout: layout})
			})
		}
		// The expiring tables of one-word buckets, whose values carry generation bits.
		for _, f := range []int{4, 8, 13} {
			t.Run(fmt.Sprintf("%v/f=%d/gen", layout, f), func(t *testing.T) {
				testMoveNear(t, Config{Capacity: 2000, FingerprintBits: f, Layout: layout, Generations: 4})
			})
		}
	}
}

func testMoveNear(t *testing.T, cfg Config) {
	c := mustNewConcurrent[uint64](t, cfg)
	for k := uint64(0); k < uint64(cfg.Capacity); k++ {
		if cfg.Generations > 0 && k == uint64(cfg.Capacity)/2 {
			c.Advance() // slots of two generations, none expired
		}
		if err := c.Insert(k); err != nil {
			t.Fatal(err)
		}
	}
	s := c.c.cur.Load()
	if s.t.genBits != 0 && !s.t.class.oneWord() {
		t.Fatalf("class %d: not an expiring class of one-word buckets", s.t.class)
	}
	moved, longer := 0, 0
	for k := uint64(1 << 40); moved < 100 || longer < 20; k++ {
		if k > 1<<40+1_000_000 {
			t.Fatalf("%d one-step moves and %d other searches in 1M keys", moved, longer)
		}
		fp, i1 := s.t.locate(c.Hash(k))
		i2 := s.t.alt(i1, fp)
		if s.t.hasFree(i1) || s.t.hasFree(i2) {
			continue
		}
		v := genValue(&s.t, fp, uint(c.c.gen.Load()))
		q, end := s.search(make([]pathNode, 0, searchBuckets*DefaultMaxKicks+2), DefaultMaxKicks, i1, v, i2, v)
		want := ctableOf(&s.t)
		oneStep := end >= 0 && q[q[end].parent].parent < 0
		if end >= 0 {
			want.apply(q, end)
		}
		got := ctableOf(&s.t)
		w1, w2 := got.t.narrowWord(i1), got.t.narrowWord(i2)
		ok := new(concurrent).moveNear(got, i1, w1, i2, w2, v, true) // every stripe held
		if ok != oneStep {
			t.Fatalf("key %d: moveNear %v, search found a path of one step: %v", k, ok, oneStep)
		}
		if !oneStep {
			want = ctableOf(&s.t)
			longer++
		} else {
			moved++
		}
		for i := range want.words {
			if got.words[i] != want.words[i] {
				t.Fatalf("key %d: word %d is %#x after moveNear, %#x after search and apply", k, i, got.words[i], want.words[i])
			}
		}
	}
}

// TestMoveNearWithinBudget checks that with MaxKicks 1, where search
// examines only the first bucket's four fingerprints, an insert into two
// full buckets succeeds exactly when search finds a path: moveNear, which
// looks at eight, is not used.
func TestMoveNearWithinBudget(t *testing.T) {
	for _, layout := range layouts {
		c := mustNewConcurrent[uint64](t, Config{Capacity: 2000, FingerprintBits: 13, Layout: layout, MaxKicks: 1})
		r := newRand(1)
		for c.InsertHash(r.Uint64()) == nil {
		}
		s := c.c.cur.Load()
		tried, found := 0, 0
		for tried < 300 {
			h := r.Uint64()
			fp, i1 := s.t.locate(h)
			i2 := s.t.alt(i1, fp)
			if s.t.hasFree(i1) || s.t.hasFree(i2) {
				continue
			}
			tried++
			_, end := s.search(make([]pathNode, 0, searchBuckets+2), 1, i1, fp, i2, fp)
			if end >= 0 {
				found++
			}
			d := NewConcurrentFrom(c.Snapshot())
			if err := d.InsertHash(h); (err == nil) != (end >= 0) {
				t.Fatalf("%v: hash %#x: Insert returned %v, search found a path: %v", layout, h, err, end >= 0)
			}
		}
		if found == 0 || found == tried {
			t.Fatalf("%v: search found a path for %d of %d keys: the test needs both", layout, found, tried)
		}
	}
}

// TestSearchQueueBytes: the search queue takes the 64 bytes a MaxKicks step
// that Config.MaxKicks and ConcurrentFilter.ReadFrom state, decoded or new.
func TestSearchQueueBytes(t *testing.T) {
	cfg := Config{Capacity: 100, MaxKicks: MaxMaxKicks}
	c := mustNewConcurrent[uint64](t, cfg)
	var d ConcurrentFilter[uint64]
	if err := d.UnmarshalBinary(mustMarshal(t, mustNew[uint64](t, cfg))); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*ConcurrentFilter[uint64]{c, &d} {
		if n := uint64(cap(f.c.path)) * uint64(unsafe.Sizeof(pathNode{})); n > 64*(MaxMaxKicks+1) {
			t.Errorf("search queue of %d bytes for MaxKicks %d, more than 64 a step", n, MaxMaxKicks)
		}
	}
}
