package main

import "github.com/seed-a0724874/cuckoo"

// This library, in both bucket layouts. Its *Filter[K] has the harness's
// shape already except that Insert returns an error.

func cuckooSpec(layout cuckoo.Layout) spec {
	return spec{
		name:  "cuckoo/" + layout.String(),
		rates: targets,
		batch: true,
		u64:   newCuckoo[uint64](layout),
		str:   newCuckoo[string](layout),
	}
}

type cuckooFilter[K Key] struct{ *cuckoo.Filter[K] }

func (f cuckooFilter[K]) Insert(key K) bool { return f.Filter.Insert(key) == nil }

func newCuckoo[K Key](layout cuckoo.Layout) maker[K] {
	return func(capacity int, rate float64, _ []K) (Filter[K], error) {
		f, err := cuckoo.New[K](cuckoo.Config{Capacity: capacity, FalsePositiveRate: rate, Layout: layout})
		if err != nil {
			return nil, err
		}
		return cuckooFilter[K]{f}, nil
	}
}
