// Command icount is the program whose instructions count a lookup or an
// insert under valgrind (run.sh): it fills a filter of n uint64 keys to
// capacity, then looks every key up reps times. Instructions per lookup are
// the difference between runs with reps 3 and reps 1, divided by 2n, so
// that start-up, key generation and the fill cancel out; per insert, the
// difference between filling n keys and filling one, divided by n-1.
//
//	icount N BITS REPS [semi] [grow] [conc] [batch] [gen] [advance] [buckets]
//
// REPS < 0 inserts the first -REPS keys and looks nothing up. semi makes the
// filter semi-sorted; grow makes it growable from N/1024 to N; conc makes it
// a ConcurrentFilter; str makes the keys 16-byte strings; batch inserts with one InsertBatch instead of a loop
// of Insert and, for a Filter, looks the keys up with ContainsBatch; gen makes its keys expire (Config.Generations 4), inserted in
// the current generation; half doubles the Capacity (and MaxCapacity),
// so that inserts seldom displace. advance calls Advance REPS times after the fill
// instead of looking keys up (on a filter of 4 generations whose fill took
// one Advance every N/4 keys, so that each Advance clears a quarter of the
// keys and then finds none of its generation); buckets prints the filter's
// bucket count and counts nothing. With grow and gen, an Advance may halve
// the table once the keys left fit a smaller one, and then counts the
// halving too: from a million keys, the third Advance after the fill does.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"

	"github.com/seed-a0724874/cuckoo"
)

func splitmix(seed, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

//go:noinline
func lookups(f *cuckoo.Filter[uint64], keys []uint64, reps int) int {
	n := 0
	for range reps {
		for _, k := range keys {
			if f.Contains(k) {
				n++
			}
		}
	}
	return n
}

// blookups is lookups with ContainsBatch, all the keys a call.
//
//go:noinline
func blookups(f *cuckoo.Filter[uint64], keys []uint64, reps int) int {
	n := 0
	for range reps {
		n += f.ContainsBatch(keys, nil)
	}
	return n
}

//go:noinline
func inserts(f *cuckoo.Filter[uint64], keys []uint64) int {
	n := 0
	for _, k := range keys {
		if f.Insert(k) == nil {
			n++
		}
	}
	return n
}

// slookups and sinserts are lookups and inserts of 16-byte string keys
// (the bench's string keys: the key's 8 little-endian bytes twice),
// written out again as clookups and cinserts are.
//
//go:noinline
func slookups(f *cuckoo.Filter[string], keys []string, reps int) int {
	n := 0
	for range reps {
		for _, k := range keys {
			if f.Contains(k) {
				n++
			}
		}
	}
	return n
}

//go:noinline
func sinserts(f *cuckoo.Filter[string], keys []string) int {
	n := 0
	for _, k := range keys {
		if f.Insert(k) == nil {
			n++
		}
	}
	return n
}

// clookups and cinserts are lookups and inserts for a ConcurrentFilter,
// written out again on purpose: a generic or interface version would call
// Contains and Insert indirectly, and count that call as the library's.
//
//go:noinline
func clookups(f *cuckoo.ConcurrentFilter[uint64], keys []uint64, reps int) int {
	n := 0
	for range reps {
		for _, k := range keys {
			if f.Contains(k) {
				n++
			}
		}
	}
	return n
}

//go:noinline
func cinserts(f *cuckoo.ConcurrentFilter[uint64], keys []uint64, batch bool) int {
	if batch {
		n, _ := f.InsertBatch(keys)
		return n
	}
	n := 0
	for _, k := range keys {
		if f.Insert(k) == nil {
			n++
		}
	}
	return n
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: icount N BITS REPS [semi] [grow]")
		os.Exit(2)
	}
	n, _ := strconv.Atoi(os.Args[1])
	bits, _ := strconv.Atoi(os.Args[2])
	reps, _ := strconv.Atoi(os.Args[3])
	cfg := cuckoo.Config{Capacity: n, FingerprintBits: bits}
	conc, batch, advance, buckets, str := false, false, false, false, false
	for _, a := range os.Args[4:] {
		switch a {
		case "conc":
			conc = true
		case "batch":
			batch = true
		case "semi":
			cfg.Layout = cuckoo.SemiSorted
		case "grow":
			cfg.Capacity, cfg.MaxCapacity = n>>10, n
		case "gen":
			cfg.Generations = 4
		case "advance":
			cfg.Generations, advance = 4, true
		case "buckets":
			buckets = true
		case "str":
			str = true
		case "half": // twice the Capacity: inserts into free slots, few displacements
			cfg.Capacity *= 2
			cfg.MaxCapacity *= 2
		}
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = splitmix(1, uint64(i))
	}
	if buckets {
		f, err := cuckoo.New[uint64](cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(f.Slots() / 4)
		return
	}
	if str {
		f, err := cuckoo.New[string](cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		skeys := make([]string, len(keys))
		for i, k := range keys {
			b := binary.LittleEndian.AppendUint64(nil, k)
			skeys[i] = string(append(b, b...))
		}
		if reps < 0 {
			fmt.Println(sinserts(f, skeys[:-reps]))
			return
		}
		fmt.Println(sinserts(f, skeys), slookups(f, skeys, reps))
		return
	}
	if conc {
		c, err := cuckoo.NewConcurrent[uint64](cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if reps < 0 {
			fmt.Println(cinserts(c, keys[:-reps], batch))
			return
		}
		if advance {
			fmt.Println(cadvances(c, keys, reps))
			return
		}
		fmt.Println(cinserts(c, keys, batch), clookups(c, keys, reps))
		return
	}
	f, err := cuckoo.New[uint64](cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if reps < 0 {
		if batch {
			k, _ := f.InsertBatch(keys[:-reps])
			fmt.Println(k)
			return
		}
		fmt.Println(inserts(f, keys[:-reps]))
		return
	}
	if advance {
		fmt.Println(advances(f, keys, reps))
		return
	}
	if batch {
		fmt.Println(inserts(f, keys), blookups(f, keys, reps))
		return
	}
	fmt.Println(inserts(f, keys), lookups(f, keys, reps))
}

// advances fills f over its 4 generations, a quarter of the keys each, and
// then calls Advance reps times.
//
//go:noinline
func advances(f *cuckoo.Filter[uint64], keys []uint64, reps int) int {
	q := len(keys) / 4
	for g := range 4 {
		if g > 0 {
			f.Advance()
		}
		inserts(f, keys[g*q:(g+1)*q])
	}
	n := 0
	for range reps {
		n += f.Advance()
	}
	return n
}

// cadvances is advances for a ConcurrentFilter.
//
//go:noinline
func cadvances(f *cuckoo.ConcurrentFilter[uint64], keys []uint64, reps int) int {
	q := len(keys) / 4
	for g := range 4 {
		if g > 0 {
			f.Advance()
		}
		cinserts(f, keys[g*q:(g+1)*q], false)
	}
	n := 0
	for range reps {
		n += f.Advance()
	}
	return n
}
