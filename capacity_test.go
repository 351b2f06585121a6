package cuckoo

import (
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

// bucketsV1 is the sizing before minFreeSlots: the target load and the
// spare buckets alone. The golden files of fixed filters are built with it.
func bucketsV1(capacity int, f uint) uint64 {
	m := uint64(math.Ceil(float64(capacity) / (slotsPerBucket * targetLoad(f))))
	return m + m&1 + spareBuckets
}

// TestSmallTableSizing checks the rules of minFreeSlots and splitsTable:
// every table keeps min(2*capacity, minFreeSlots) slots free at capacity,
// is never smaller than before the rules nor split, is the smallest such,
// and from 760 items up is what it was for f >= 11 (f >= 8 but for split
// tables).
func TestSmallTableSizing(t *testing.T) {
	for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
		for n := 1; n <= 3000; n++ {
			m, ok := bucketsFor(n, f)
			old := bucketsV1(n, f)
			free := func(m uint64) int { return int(m)*slotsPerBucket - n }
			switch {
			case !ok || m%2 != 0 || m < old || splitsTable(m, f):
				t.Fatalf("n=%d f=%d: %d buckets (%v), %d before", n, f, m, ok, old)
			case free(m) < min(2*n, minFreeSlots):
				t.Fatalf("n=%d f=%d: %d buckets leave %d slots free", n, f, m, free(m))
			case m-2 >= old && free(m-2) >= min(2*n, minFreeSlots) && !splitsTable(m-2, f):
				t.Fatalf("n=%d f=%d: %d buckets where %d would do", n, f, m, m-2)
			case f >= 8 && n >= 760 && m != old && (f >= 11 || !splitsTable(old, f)):
				t.Fatalf("n=%d f=%d: %d buckets, %d before the rules", n, f, m, old)
			}
		}
	}
	// The union bound on 9 of the Capacity keys sharing one of the m^2/4
	// bucket pairs (each key's pair is a given one with probability 4/m^2),
	// the failure that minFreeSlots' rule guards against below 150 items:
	// at most 1.01e-8 (at 72 items).
	for n := 9; n <= 1000; n++ {
		m, _ := bucketsFor(n, 13)
		p := 4 / float64(m*m)
		term := 1.0 // C(n, 9) p^9 (1-p)^(n-9), then the next terms of the tail
		for i := range 9 {
			term *= float64(n-i) / float64(i+1) * p
		}
		term *= math.Pow(1-p, float64(n-9))
		tail := 0.0
		for i := 9; i <= n && term > tail*1e-12; i++ {
			tail += term
			term *= float64(n-i) / float64(i+1) * p / (1 - p)
		}
		if bound := float64(m*m) / 4 * tail; bound > 1.01e-8 {
			t.Errorf("n=%d: %d buckets, P(9 keys in one pair) <= %.3g", n, m, bound)
		}
	}
	// What New gives the golden cases today; their files keep the earlier
	// sizing, bucketsV1.
	want := map[string]uint64{
		"v5-packed-f4.bin": 28, "v5-packed-f8.bin": 38, "v5-packed-f12.bin": 38,
		"v5-packed-f13-string.bin": 50, "v5-packed-f16.bin": 38, "v5-packed-f17.bin": 38,
		"v5-packed-f25.bin": 32, "v5-packed-f32.bin": 32, "v5-semisorted-f4.bin": 28,
		"v5-semisorted-f9.bin": 38, "v5-semisorted-f13-string.bin": 50,
		"v5-semisorted-f16.bin": 38, "v5-semisorted-f21.bin": 36, "v5-semisorted-f32.bin": 32,
	}
	for _, c := range goldenCases {
		if c.buckets == 0 || c.doublings != 0 {
			continue // a file of today's sizing (keyed ones), or a growable one's first table (TestGrowableConfig)
		}
		p, err := c.cfg.resolve()
		if err != nil || p.m != want[c.file] {
			t.Errorf("%s: %d buckets (%v), want %d", c.file, p.m, err, want[c.file])
		}
		if c.buckets != bucketsV1(c.cfg.Capacity, p.f) {
			t.Errorf("%s: the case says %d buckets, the earlier sizing %d", c.file, c.buckets, bucketsV1(c.cfg.Capacity, p.f))
		}
	}
}

// fillCase is one configuration of the capacity fills.
type fillCase struct {
	n      int
	f      uint
	layout Layout
}

// fillCases are the configurations the capacity promise is tested on: every
// capacity 1..64, a few larger ones, widths 4..8 and a spread above.
func fillCases() []fillCase {
	sizes := []int{100, 150, 250, 400}
	for n := 1; n <= 64; n++ {
		sizes = append(sizes, n)
	}
	var cs []fillCase
	for _, n := range sizes {
		for _, f := range []uint{4, 5, 6, 7, 8, 12, 13, 16, 32} {
			for _, l := range layouts {
				cs = append(cs, fillCase{n, f, l})
			}
		}
	}
	return cs
}

// fills inserts c.n random keys into an empty filter of c's shape, reseeded
// for each of the fills, and returns how many fills failed (any error) and
// how many keys were inserted in all.
func fills(c fillCase, count int, seed uint64) (failed, keys int) {
	p, err := Config{Capacity: c.n, FingerprintBits: int(c.f), Layout: c.layout}.resolve()
	if err != nil {
		panic(err)
	}
	return fillTable(p.m, c, count, seed)
}

// fillTable is fills into a table of m buckets.
func fillTable(m uint64, c fillCase, count int, seed uint64) (failed, keys int) {
	r := newRand(seed)
	core := newCore(reader{t: newTable(m, c.f, c.layout), kind: kindInt, capacity: c.n}, DefaultMaxKicks)
	for range count {
		// What New with a random Seed does, without a new table each time.
		s := r.Uint64() | 1
		core.h, core.rng, core.count = newHasher(s), s, 0
		clear(core.t.data)
		for range c.n {
			k := r.Uint64()
			keys++
			if core.insert(kindInt, unsafe.Pointer(&k)) != nil {
				failed++
				break
			}
		}
	}
	return failed, keys
}

// TestCapacityPromise fills filters of random keys to capacity and expects
// no failure: 2.3 million fills here (a few seconds), 58,000 under -short.
// CUCKOO_FILLS=n runs n fills per configuration instead: 50,000 make the
// 58 million fills of minFreeSlots' comment, in 2 minutes.
func TestCapacityPromise(t *testing.T) {
	t.Parallel()
	count := 2000
	if testing.Short() || raceEnabled {
		count = 50
	}
	if s := os.Getenv("CUCKOO_FILLS"); s != "" {
		var err error
		if count, err = strconv.Atoi(s); err != nil {
			t.Fatalf("CUCKOO_FILLS=%q: %v", s, err)
		}
	}
	start := time.Now()
	total, failedFills := 0, 0
	for i, c := range fillCases() {
		n := count
		if c.n > 64 {
			n = max(1, count/c.n*16) // about as many keys as the tiny ones
		}
		failed, _ := fills(c, n, uint64(i)+1)
		total += n
		failedFills += failed
		if failed > 0 {
			t.Errorf("capacity %d, %d-bit %v: %d of %d fills failed", c.n, c.f, c.layout, failed, n)
		}
	}
	t.Logf("%d fills, %d failed, %v", total, failedFills, time.Since(start).Round(time.Millisecond))
}

// TestSplitTables fills tables of the sizes that split before splitsTable
// skipped their bucket counts: 26 of 400 fills of 3534 8-bit items failed
// at 932 buckets, 20 of 400 of 5722 at 1508, 0.35% of 802 6-bit items at 220.
func TestSplitTables(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f    uint
		m, n int
	}{{8, 932, 3534}, {8, 1508, 5722}, {6, 220, 802}} {
		if !splitsTable(uint64(c.m), c.f) || splitsTable(uint64(c.m+2), c.f) {
			t.Errorf("f=%d: %d buckets split %v, %d %v", c.f, c.m, splitsTable(uint64(c.m), c.f), c.m+2, splitsTable(uint64(c.m+2), c.f))
		}
		if m := bucketsV1(c.n, c.f); m != uint64(c.m) {
			t.Fatalf("f=%d n=%d: %d buckets before, not %d", c.f, c.n, m, c.m)
		}
		count := 100
		if testing.Short() || raceEnabled {
			count = 5
		}
		for _, l := range layouts {
			if failed, _ := fills(fillCase{c.n, c.f, l}, count, uint64(c.m)); failed > 0 {
				t.Errorf("f=%d n=%d %v: %d of %d fills failed", c.f, c.n, l, failed, count)
			}
		}
	}
}

// TestCapacityFor checks capacityFor against New's sizing: the largest
// capacity bucketsFor gives at most m buckets, found by counting up, for
// every even m to 4000 and every width, and at random m to 2^32; a tenth
// less for an m that splits the table. For every other m from 4 up, New's
// table for that capacity is m buckets again.
func TestCapacityFor(t *testing.T) {
	t.Parallel()
	fits := func(c int, f uint, m uint64) bool {
		n, ok := bucketsFor(c, f)
		return ok && n <= m
	}
	check := func(m uint64, f uint, largest int) {
		want := largest
		if splitsTable(m, f) {
			want -= largest / 10
		}
		got := capacityFor(m, f)
		switch {
		case got != max(want, 1) || got > int(m)*slotsPerBucket:
			t.Fatalf("f=%d m=%d: capacityFor %d, want %d", f, m, got, max(want, 1))
		case m >= 4 && !splitsTable(m, f) && fits(got, f, m-2):
			t.Fatalf("f=%d m=%d: New's table for capacity %d is smaller", f, m, got)
		}
	}
	for f := uint(minFingerprintBits); f <= maxFingerprintBits; f++ {
		c := 0
		for m := uint64(2); m <= 4000; m += 2 {
			for fits(c+1, f, m) {
				c++
			}
			check(m, f, c)
		}
	}
	r := newRand(1)
	for range 2000 {
		f := minFingerprintBits + uint(r.Uint64()%(maxFingerprintBits-minFingerprintBits+1))
		m := 2 + r.Uint64()%(maxBuckets/2)*2
		got := capacityFor(m, f)
		if splitsTable(m, f) { // checked above, up to 4000 buckets
			continue
		}
		if !fits(got, f, m) || fits(got+1, f, m) || fits(got, f, m-2) {
			t.Fatalf("f=%d m=%d: capacityFor %d, not the largest that fits in m, or fits in m-2", f, m, got)
		}
	}
}

// TestSplitCapacity fills tables of bucket counts that split the table,
// which Build may make, to capacityFor: none may fail. Under -short, only
// counts where fills to the capacity of the count below failed 1 to 3
// times in 20 (capacityFor promises a tenth less); else every split count
// up to 6000 buckets at widths 4 to 10 (none failed of 200 fills of each,
// 60,600 in all; nor of 5 of each from 6000 to 30,000 buckets, 6,190).
func TestSplitCapacity(t *testing.T) {
	t.Parallel()
	type split struct {
		f uint
		m uint64
	}
	cases := []split{{6, 534}, {6, 2796}, {6, 3728}, {7, 1398}, {7, 3770}, {8, 2262}, {8, 5922}}
	count := 20
	if !testing.Short() && !raceEnabled {
		cases = cases[:0]
		for f := uint(minFingerprintBits); f <= 10; f++ {
			for m := uint64(4); m <= 6000; m += 2 {
				if splitsTable(m, f) {
					cases = append(cases, split{f, m})
				}
			}
		}
	}
	for _, c := range cases {
		if !splitsTable(c.m, c.f) {
			t.Fatalf("f=%d: %d buckets do not split", c.f, c.m)
		}
		n := capacityFor(c.m, c.f)
		for _, l := range layouts {
			if failed, _ := fillTable(c.m, fillCase{n, c.f, l}, count, c.m); failed > 0 {
				t.Errorf("f=%d, %d buckets, %v: %d of %d fills of capacity %d failed", c.f, c.m, l, failed, count, n)
			}
		}
	}
}

// TestSplitsTableDefinition checks splitsTable, which tries only some
// divisors of m and stops counting early, against its definition: some q
// from 3 to 64 divides m and leaves fewer than 1 in 16 fingerprints outside
// the largest class of r(fp) mod q.
func TestSplitsTableDefinition(t *testing.T) {
	t.Parallel()
	top := uint64(40_000)
	if testing.Short() {
		top = 6000
	}
	for f := uint(minFingerprintBits); f <= 10; f++ {
		fps := uint32(1)<<f - 1
		for m := uint64(2); m <= top; m += 2 {
			want := false
			for q := uint64(3); q <= 64 && !want; q++ {
				if m%q != 0 {
					continue
				}
				var classes [64]uint32
				for fp := uint32(1); fp <= fps; fp++ {
					classes[(uint64(fp*0x9e3779b1)*m>>32|1)%q]++
				}
				want = (fps-slices.Max(classes[:]))*16 < fps
			}
			if got := splitsTable(m, f); got != want {
				t.Fatalf("f=%d m=%d: splitsTable %v, by definition %v", f, m, got, want)
			}
		}
	}
}
