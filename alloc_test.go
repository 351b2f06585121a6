package cuckoo

import (
	"fmt"
	"strconv"
	"testing"
)

// TestZeroAllocations proves every operation on a built filter allocates
// nothing, for each key type, layout and configuration, on a filter near
// full so that inserts displace, fail and meet duplicates. The probe
// implementation selects only the batches' code (the assembly probes,
// hashes and prefetches), so they are checked under every implementation
// and the other operations once, under the one in use.
func TestZeroAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race, allocation counts include the race detector's")
	}
	defer clear(filledForAllocs)
	forEachLayout(t, func(t *testing.T, layout Layout) {
		testAllAllocs(t, layout, func(op string) bool { return !batchOps[op] })
		forEachImpl(t, func(t *testing.T) { testAllAllocs(t, layout, func(op string) bool { return batchOps[op] }) })
	})
}

// batchOps names the operations of perKeyOps whose code depends on the
// probe implementation.
var batchOps = map[string]bool{"ContainsBatch": true, "ContainsHashBatch": true, "InsertBatch": true, "InsertHashBatch": true}

// allocRuns is the calls testing.AllocsPerRun makes of each operation. It
// divides the allocations by the calls, rounding down, so fewer calls
// catch a rarer allocation; 50 still take every path of an insert into a
// near-full filter (most fail after a whole walk) many times. The long
// run makes 200, for more walks.
func allocRuns() int {
	if longTests() {
		return 200
	}
	return 50
}

// batchAllocRuns is allocRuns for the operations of batchOps, whose calls
// each take hundreds of keys: 10 calls of InsertBatch make 3,000 inserts
// into the near-full filter, more walks than 50 of Insert, and the calls
// of ContainsBatch repeat one read-only probe of 4,000 keys, which
// allocates in every call if in any. Fewer calls leave the check as strong
// and take 5 times less of TestZeroAllocations' time, most of which went to
// the batches.
func batchAllocRuns() int {
	if longTests() {
		return 200
	}
	return 10
}

// testAllAllocs checks the operations that check selects, for every key
// type, on the filters of testAllocs.
func testAllAllocs(t *testing.T, layout Layout, check func(op string) bool) {
	testAllocs(t, layout, check, func(i int) uint64 { return uint64(i) })
	testAllocs(t, layout, check, func(i int) string { return "key-" + strconv.Itoa(i) })
	testAllocs(t, layout, check, func(i int) []byte { return []byte("key-" + strconv.Itoa(i)) })
	testAllocs(t, layout, check, func(i int) int8 { return int8(i) })
	testAllocs(t, layout, check, func(i int) float64 { return float64(i) / 3 })
	testAllocs(t, layout, check, func(i int) userID { return userID(i) })
	testAllocs(t, layout, check, func(i int) [16]byte { return uuidKey(i) })
	testAllocs(t, layout, check, uuidKey)
	testAllocs(t, layout, check, func(i int) [32]byte { return digestKey(i) })
	testAllocs(t, layout, check, digestKey)
}

// testAllocs checks a fixed filter, a keyed one and a growable one that
// the first n inserts have grown to its last stage (a doubling allocates
// the new table; a grown filter allocates nothing more).
func testAllocs[T Hashable](t *testing.T, layout Layout, check func(op string) bool, key func(int) T) {
	const n = 2000
	for _, cfg := range []Config{
		{Capacity: n, Layout: layout, FingerprintBits: 9},
		{Capacity: n, Layout: layout, FingerprintBits: 9, Key: [16]byte{9: 9}},
		{Capacity: n / 8, MaxCapacity: n, Layout: layout, FingerprintBits: 9},
		{Capacity: n, Layout: layout, FingerprintBits: 9, Generations: 4},
		{Capacity: n, Layout: layout, FingerprintBits: 20, Generations: 16},
		{Capacity: n, Layout: layout, FingerprintBits: 9, Generations: 1},
	} {
		testAllocsOf(t, cfg, check, key)
	}
}

// filledForAllocs holds, by key type and Config, the filter that
// perKeyOps' inserts filled, with its keys and hashes, so that the four
// runs of testAllocsOf on it (the operations that do not depend on the
// probe implementation, then the batches under each) start from a Clone of
// the same table instead of filling their own: the fills of int8 keys, 8
// copies of each of 256 into a near-full table, took most of the rest of
// TestZeroAllocations' time. TestZeroAllocations clears it.
var filledForAllocs = map[string]any{}

// filledFilter is a filter of filledForAllocs, with key(0) .. key(2n-1)
// (the first n inserted) and their hashes.
type filledFilter[T Hashable] struct {
	f      *Filter[T]
	keys   []T
	hashes []uint64
}

func testAllocsOf[T Hashable](t *testing.T, cfg Config, check func(op string) bool, key func(int) T) {
	const n = 2000
	id := fmt.Sprintf("%T %+v", key(0), cfg)
	base, ok := filledForAllocs[id].(filledFilter[T])
	if !ok {
		base.f = mustNew[T](t, cfg)
		base.keys, base.hashes = opKeys(base.f, key, n)
		fillKeys(base.f, base.keys[:n])
		filledForAllocs[id] = base
	}
	f := base.f.Clone()
	ops := keyOpsOf(f, base.keys, base.hashes, n)
	if f.c.t.k != f.c.t.g {
		t.Fatalf("%+v: stage %d of %d after %d inserts", cfg, f.c.t.k, f.c.t.g, n)
	}
	for name, op := range ops {
		if !check(name) {
			continue
		}
		runs := allocRuns()
		if batchOps[name] {
			runs = batchAllocRuns()
		}
		if a := testing.AllocsPerRun(runs, op); a != 0 {
			t.Errorf("%T %+v %s: %v allocations per call", key(0), cfg, name, a)
		}
	}
}

// keyOps is the per-key API that Filter and ConcurrentFilter share.
type keyOps[T Hashable] interface {
	Insert(T) error
	InsertUnique(T) (bool, error)
	Contains(T) bool
	Count(T) int
	Delete(T) bool
	Hash(T) uint64
	InsertHash(uint64) error
	ContainsHash(uint64) bool
	DeleteHash(uint64) bool
	CountHash(uint64) int
	ContainsBatch([]T, []bool) int
	ContainsHashBatch([]uint64, []bool) int
	InsertBatch([]T) (int, error)
	InsertHashBatch([]uint64) (int, error)
	Advance() int
}

// perKeyOps inserts key(0) .. key(n-1) into f and returns, by name, calls
// of each per-key operation of f on the next of key(0) .. key(2n-1), for
// testing.AllocsPerRun.
func perKeyOps[T Hashable](f keyOps[T], key func(int) T, n int) map[string]func() {
	keys, hashes := opKeys(f, key, n)
	fillKeys(f, keys[:n])
	return keyOpsOf(f, keys, hashes, n)
}

// opKeys returns key(0) .. key(2n-1) and their hashes in f.
func opKeys[T Hashable](f keyOps[T], key func(int) T, n int) ([]T, []uint64) {
	keys := make([]T, 2*n)
	hashes := make([]uint64, len(keys))
	for i := range keys {
		keys[i] = key(i)
		hashes[i] = f.Hash(keys[i])
	}
	return keys, hashes
}

// fillKeys inserts keys into f, whether they fit or not.
func fillKeys[T Hashable](f keyOps[T], keys []T) {
	for _, k := range keys {
		_ = f.Insert(k)
	}
}

// keyOpsOf is perKeyOps on a filter filled with keys[:n] already.
func keyOpsOf[T Hashable](f keyOps[T], keys []T, hashes []uint64, n int) map[string]func() {
	found := make([]bool, len(keys))
	i := 0
	next := func() T { i++; return keys[i%len(keys)] }
	return map[string]func(){
		"Insert":            func() { _ = f.Insert(next()) },
		"InsertUnique":      func() { _, _ = f.InsertUnique(next()) },
		"Contains":          func() { f.Contains(next()) },
		"Count":             func() { f.Count(next()) },
		"Delete":            func() { f.Delete(next()) },
		"Hash":              func() { f.Hash(next()) },
		"InsertHash":        func() { _ = f.InsertHash(hashes[i%len(hashes)]); i++ },
		"ContainsHash":      func() { f.ContainsHash(hashes[i%len(hashes)]); i++ },
		"DeleteHash":        func() { f.DeleteHash(hashes[i%len(hashes)]); i++ },
		"CountHash":         func() { f.CountHash(hashes[i%len(hashes)]); i++ },
		"ContainsBatch":     func() { f.ContainsBatch(keys, found) },
		"ContainsHashBatch": func() { f.ContainsHashBatch(hashes, found) },
		"InsertMany":        func() { _ = f.Insert(next()); _ = f.Insert(next()); _ = f.Insert(next()) },
		"InsertBatch":       func() { j := i % n; i++; _, _ = f.InsertBatch(keys[j : j+300]) },
		"InsertHashBatch":   func() { j := i % n; i++; _, _ = f.InsertHashBatch(hashes[j : j+300]) },
		"Advance":           func() { f.Advance() },
		"InsertAdvance":     func() { _ = f.Insert(next()); _, _ = f.InsertUnique(next()); f.Advance() },
	}
}
