package cuckoo

import (
	"fmt"
	"strconv"
)

// Info describes a filter at one moment; its String is one line for logs.
type Info struct {
	Len         int // items stored
	Capacity    int // as Filter.Capacity: the distinct keys the empty table accepts
	MaxCapacity int // Config.MaxCapacity for a growable filter, else Capacity
	// TableCapacity is the distinct keys the current table promises to
	// take: Capacity, doubled with each doubling (the last table's is at
	// least MaxCapacity) and halved with each halving (Filter.Shrink, an
	// expiring filter's Advance), which the keys must fit.
	TableCapacity int
	Buckets       int // buckets of the current table
	Slots         int // Buckets * 4
	SizeBytes     int // the table's memory, as SizeBytes

	Doublings    int // how many times a growable filter has doubled
	MaxDoublings int // how many times it can double in all; 0 for a fixed filter

	FingerprintBits            int
	Layout                     Layout
	LoadFactor                 float64 // Len / Slots
	EstimatedFalsePositiveRate float64 // of Contains at the current load
	MaxKicks                   int     // 0 for a View, which does not insert
	Keyed                      bool    // made with Config.Key; the key itself is never reported

	Generations int // Config.Generations: 0 for a filter whose keys never expire
	Generation  int // an expiring filter's current generation, 0..Generations-1
}

// String is the Info in one line, with every field.
func (i Info) String() string {
	return fmt.Sprintf("len=%d capacity=%d maxCapacity=%d tableCapacity=%d buckets=%d slots=%d bytes=%d doublings=%d/%d fingerprintBits=%d layout=%v load=%s fpr=%s maxKicks=%d keyed=%t generation=%d/%d",
		i.Len, i.Capacity, i.MaxCapacity, i.TableCapacity, i.Buckets, i.Slots, i.SizeBytes, i.Doublings, i.MaxDoublings,
		i.FingerprintBits, i.Layout, strconv.FormatFloat(i.LoadFactor, 'g', 4, 64),
		strconv.FormatFloat(i.EstimatedFalsePositiveRate, 'g', 3, 64), i.MaxKicks, i.Keyed, i.Generation, i.Generations)
}

// info is the Info of reader r (whose count is the filter's) with the given
// MaxKicks, table size in bytes and current generation.
func (r *reader) info(maxKicks, size int, gen uint) Info {
	return Info{
		Len: r.count, Capacity: r.capacity, MaxCapacity: r.maxCapacity, TableCapacity: r.tableCapacity(),
		Buckets: int(r.t.m), Slots: r.slots(), SizeBytes: size,
		Doublings: int(r.t.k), MaxDoublings: int(r.t.g),
		FingerprintBits: int(r.t.fbits), Layout: r.t.layout,
		LoadFactor: r.loadFactor(), EstimatedFalsePositiveRate: r.estimatedFPR(),
		MaxKicks: maxKicks, Keyed: r.h.sip() != nil,
		Generations: int(r.t.gens), Generation: int(gen),
	}
}

// tableCapacity is Info.TableCapacity: Capacity << k, which the table of
// stage k promises, as its buckets are at least Capacity's doubled k times.
func (r *reader) tableCapacity() int {
	if r.t.k == 0 {
		return r.capacity
	}
	return min(r.capacity<<r.t.k, r.slots())
}

// config is the Config that makes an empty filter like r's (seed, width,
// layout, first table, growth), never with the key.
func (r *reader) config(maxKicks int) Config {
	if r.t.m == 0 {
		return Config{}
	}
	c := Config{Capacity: r.capacity, FingerprintBits: int(r.t.fbits), Layout: r.t.layout,
		Seed: r.h.seed, MaxKicks: maxKicks, Generations: int(r.t.gens)}
	if r.t.g > 0 {
		c.MaxCapacity = r.maxCapacity
	}
	return c
}

// Config returns the Config that makes an empty filter compatible with f:
// New(f.Config()) hashes keys alike and has the same table, so it can be
// Merged into f unless keys expire. It never includes the Key. For a filter
// made by Build or decoded from a compact encoding, Config.Capacity is its
// Capacity, and New makes the same table but for those New never makes (2
// buckets, or a few bucket counts at fingerprints of 10 bits or fewer),
// where only the hash and width agree. A zero Filter gives the zero Config.
func (f *Filter[T]) Config() Config { return f.c.config(f.c.maxKicks) }

// Info returns a snapshot of the filter's size, load and parameters.
func (f *Filter[T]) Info() Info { return f.c.info(f.c.maxKicks, f.SizeBytes(), f.c.t.gen()) }

// Config is Filter.Config of the filter the view reads, MaxKicks 0.
func (v *View[T]) Config() Config { return v.r.config(0) }

// Info returns a snapshot of the view's filter; see Filter.Info.
func (v *View[T]) Info() Info { return v.r.info(0, v.SizeBytes(), v.r.t.gen()) }

// Config is Filter.Config.
func (f *ConcurrentFilter[T]) Config() Config {
	r := f.c.view()
	return r.config(f.c.maxKicks)
}

// Info is Filter.Info, without a lock: while writers run, Len and the
// table's fields are each read once, at moments close together.
func (f *ConcurrentFilter[T]) Info() Info {
	r := f.c.view()
	return r.info(f.c.maxKicks, f.SizeBytes(), uint(f.c.gen.Load()))
}
