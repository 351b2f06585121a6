package cuckoo

import (
	"math"
	"testing"
)

// TestFalsePositiveRate fills a filter of each width to capacity and checks
// the count of misses found against falsePositiveRate, within five standard
// deviations of the binomial count (plus one, for tiny rates), and never
// above the usual estimate 1 - (1 - 1/(2^f-1))^(8 load) by more than that.
func TestFalsePositiveRate(t *testing.T) {
	t.Parallel()
	queries := 1 << 21
	if testing.Short() {
		queries = 1 << 18
	}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for bits := 4; bits <= 32; bits++ {
			const n = 30_000
			f := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: bits, Layout: layout, Seed: uint64(bits)})
			for k := range uint64(n) {
				if err := f.Insert(k); err != nil {
					t.Fatal(err)
				}
			}
			hits := 0
			for k := uint64(1 << 40); k < 1<<40+uint64(queries); k++ {
				if f.Contains(k) {
					hits++
				}
			}
			p := falsePositiveRate(uint(bits), f.LoadFactor())
			mean := p * float64(queries)
			slack := 5*math.Sqrt(mean*(1-p)) + 1
			if math.Abs(float64(hits)-mean) > slack {
				t.Errorf("f=%d: %d false positives in %d queries, expected %.1f ± %.1f", bits, hits, queries, mean, slack)
			}
			usual := -math.Expm1(8 * f.LoadFactor() * math.Log1p(-1/float64(uint64(1)<<bits-1)))
			if usual < p || float64(hits) > usual*float64(queries)+slack {
				t.Errorf("f=%d: %d false positives, above the usual estimate %.6f", bits, hits, usual)
			}
			if got := f.EstimatedFalsePositiveRate(); got != p {
				t.Errorf("f=%d: EstimatedFalsePositiveRate %v, want %v", bits, got, p)
			}
		}
	})
}

// TestBitsPerItem checks the space a filter really allocates.
func TestBitsPerItem(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, bits := range []int{8, 12, 13, 16, 17, 24, 32} {
			const n = 1_000_000
			f := mustNew[uint64](t, Config{Capacity: n, FingerprintBits: bits, Layout: layout})
			per := float64(f.SizeBytes()*8) / n
			if limit := float64(bucketBits(layout, uint(bits))) / slotsPerBucket / 0.92; per > limit {
				t.Errorf("f=%d: %.3f bits per item, over %.3f", bits, per, limit)
			}
		}
	})
}
