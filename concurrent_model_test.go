//go:build cuckoomodel

package cuckoo

import (
	"errors"
	"fmt"
	"testing"
)

// A model check of the concurrent filter's protocol (concurrent.go): for one
// write operation at a time, the writer's real stores are recorded (ctable's
// recorder, declared below for this build), and a reader's loads are placed at every possible point
// between them. Go's atomics are sequentially consistent, so an
// interleaving is just the position, in the writer's sequence of stores,
// at which each of the reader's loads happens, positions never decreasing.
// Every such interleaving is tried for every key stored before the
// operation, and the reader must never validate an "absent" answer.
//
// The reader here performs the production lookup's loads in its order: the
// table pointer, the versions of both buckets' stripes, the words of bucket
// 1, the words of bucket 2, then both versions again. Which words: those
// lookup's probe for the table's class loads, and on a retry
// (lookupAt) those ctable.holds loads; both are checked. It tests the
// buckets with the production value-level code (match). Only loads of the
// locations it reads matter, so between two of its loads it only needs the
// stores to those locations: the interleavings are enumerated over those.

// recorder records a ctable's stores, in order, where ev is not nil: the
// production build's (concurrent_record.go) records nothing.
type recorder struct{ ev *[]cevent }

// cevent is one store of a write: a word of table s changed, a stripe
// version of s stored, or the publication of s.
type cevent struct {
	s       *ctable
	version bool     // seq[i] = v, else words[i] ^= v: a writer changes its buckets' bits alone
	publish bool     // s becomes the current table; words is its content then
	i, v    uint64   // the word or stripe, and the value stored or the bits flipped
	words   []uint64 // a copy of s.words at publication
}

func (r recorder) store(s *ctable, i, v uint64) {
	if r.ev != nil {
		*r.ev = append(*r.ev, cevent{s: s, version: true, i: i, v: v})
	}
}

func (r recorder) flip(s *ctable, i, d uint64) {
	if r.ev != nil {
		*r.ev = append(*r.ev, cevent{s: s, i: i, v: d})
	}
}

func (r recorder) publish(s *ctable) {
	if r.ev != nil {
		*r.ev = append(*r.ev, cevent{s: s, publish: true, words: append([]uint64(nil), s.words...)})
	}
}

// modelReader selects the reader's checks; the production reader does all.
type modelReader struct {
	validate1, validate2 bool // compare bucket 1's / bucket 2's version again before "absent"
	checkOdd             bool // refuse an odd version
}

var productionReader = modelReader{validate1: true, validate2: true, checkOdd: true}

// modelLoc is a location the reader loads: a stripe version or a word.
type modelLoc struct {
	version bool
	i       uint64
}

// modelRun is one recorded write operation: the table before it, what it
// stored, and the hashes stored before it that must stay found.
type modelRun struct {
	start  *ctable
	words  []uint64 // start's words and versions before the operation
	seq    []uint64
	events []cevent
	other  []cevent // a second writer's stores from start, at once (TestConcurrentModelTwoWriters)
	live   []uint64
}

// record runs op on c with its stores recorded.
func record(c *ConcurrentFilter[uint64], live []uint64, op func()) *modelRun {
	s := c.c.cur.Load()
	run := &modelRun{start: s, words: append([]uint64(nil), s.words...), live: live}
	for i := range s.seq {
		run.seq = append(run.seq, s.seq[i].Load())
	}
	var ev []cevent
	s.rec = recorder{&ev}
	op()
	s.rec = recorder{}
	c.c.cur.Load().rec = recorder{}
	run.events = ev
	return run
}

// sessions is the number of write sessions the run made.
func (run *modelRun) sessions() int {
	n := 0
	for _, e := range run.events {
		if e.version && e.v%2 == 1 {
			n++
		}
	}
	return n
}

// check tries every interleaving of reader r's loads with run's stores
// for every live hash, and returns the first false negative found, if any.
func (run *modelRun) check(r modelReader) (interleavings int, err error) {
	// The tables a reader can load: the first, and each one published.
	type visible struct {
		s           *ctable
		words, seq  []uint64
		firstEvent  int
		publishedAt int
	}
	tables := []visible{{s: run.start, words: run.words, seq: run.seq}}
	for k, e := range run.events {
		if e.publish {
			tables = append(tables, visible{s: e.s, words: e.words, seq: make([]uint64, len(e.s.seq)), firstEvent: k + 1, publishedAt: k})
		}
	}
	for _, h := range run.live {
		for k := range 2 * len(tables) {
			tv, retry := tables[k/2], k%2 == 1
			// The reader loads the pointer when tv becomes current; any later
			// load of the same pointer allows only a subset of these
			// interleavings.
			t := &tv.s.t
			b1, v1, b2, v2 := t.place(h)
			locs := []modelLoc{{true, b1 & tv.s.smask}, {true, b2 & tv.s.smask}}
			w1, w2 := readerWords(t, b1, retry), readerWords(t, b2, retry)
			for _, i := range w1 {
				locs = append(locs, modelLoc{false, i})
			}
			for _, i := range w2 {
				locs = append(locs, modelLoc{false, i})
			}
			locs = append(locs, locs[0], locs[1])
			// The stores to the reader's locations: the writer's, and a
			// second writer's, in every order of the two.
			relevant := func(events []cevent) (rel []cevent) {
				for _, e := range events {
					if e.s != tv.s || e.publish {
						continue
					}
					for _, l := range locs {
						if l.version == e.version && l.i == e.i {
							rel = append(rel, e)
							break
						}
					}
				}
				return rel
			}
			rel, other := relevant(run.events[tv.firstEvent:]), []cevent(nil)
			if tv.firstEvent == 0 {
				other = relevant(run.other)
			}
			for _, rel := range merges(rel, other) {
				n, err := r.enumerate(tv.words, tv.seq, locs, rel, t, len(w1), b1, v1, b2, v2)
				interleavings += n
				if err != nil {
					return interleavings, fmt.Errorf("hash %#x: table %d: %v", h, tv.publishedAt, err)
				}
			}
		}
	}
	return interleavings, nil
}

// merges returns every sequence of the events of a and b, each in its
// order.
func merges(a, b []cevent) [][]cevent {
	if len(a) == 0 || len(b) == 0 {
		return [][]cevent{append(append([]cevent(nil), a...), b...)}
	}
	var out [][]cevent
	for _, m := range merges(a[1:], b) {
		out = append(out, append([]cevent{a[0]}, m...))
	}
	for _, m := range merges(a, b[1:]) {
		out = append(out, append([]cevent{b[0]}, m...))
	}
	return out
}

// enumerate tries every placement of the reader's loads of locs, in order,
// among the stores rel, from the words and versions before them, for the
// key bucket b1 holds as v1 and b2 as v2 (n1 of the loads words of b1).
func (r modelReader) enumerate(words, seq []uint64, locs []modelLoc, rel []cevent, t *table, n1 int, b1 uint64, v1 uint32, b2 uint64, v2 uint32) (interleavings int, err error) {
	// values[j][p] is what load j sees after p of the stores.
	values := make([][]uint64, len(locs))
	for j, l := range locs {
		var v uint64
		if l.version {
			v = seq[l.i]
		} else {
			v = words[l.i]
		}
		values[j] = append(values[j], v)
		for _, e := range rel {
			switch {
			case e.version != l.version || e.i != l.i:
			case e.version:
				v = e.v
			default:
				v ^= e.v
			}
			values[j] = append(values[j], v)
		}
	}
	seen := make([]uint64, len(locs))
	pos := make([]int, len(locs))
	var try func(j, from int) error
	try = func(j, from int) error {
		if j == len(locs) {
			interleavings++
			if r.absent(t, seen, n1, b1, v1, b2, v2) {
				return fmt.Errorf("buckets %d, %d: reported absent with loads after stores %v of %d", b1, b2, pos, len(rel))
			}
			return nil
		}
		for p := from; p <= len(rel); p++ {
			seen[j], pos[j] = values[j][p], p
			if err := try(j+1, p); err != nil {
				return err
			}
		}
		return nil
	}
	return interleavings, try(0, 0)
}

// readerWords lists the words a lookup loads for bucket b of a table of t's
// shape: on its first attempt (retry false), one for the class8 and class16
// probes; otherwise those ctable.holds loads, two for buckets of at most 64
// bits and three for wider ones.
func readerWords(t *table, b uint64, retry bool) []uint64 {
	switch {
	case !retry && t.class == class8:
		return []uint64{b >> 1}
	case !retry && t.class == class16:
		return []uint64{b}
	}
	i := b * uint64(t.bbits) >> 6
	if t.f <= 16 {
		return []uint64{i, i + 1}
	}
	return []uint64{i, i + 1, i + 2}
}

// absent reports whether the reader, having seen the values seen (two
// versions, n1 words of bucket 1, the words of bucket 2, two versions),
// answers "absent" for the key held as v1 in b1 and v2 in b2.
func (r modelReader) absent(t *table, seen []uint64, n1 int, b1 uint64, v1 uint32, b2 uint64, v2 uint32) bool {
	words := seen[2 : len(seen)-2]
	if r.bucket(t, b1, words[:n1], v1) || r.bucket(t, b2, words[n1:], v2) {
		return false // found: answered at once
	}
	q1, q2, r1, r2 := seen[0], seen[1], seen[len(seen)-2], seen[len(seen)-1]
	switch {
	case r.checkOdd && (q1|q2)&1 != 0:
		return false // retries
	case r.validate1 && r1 != q1, r.validate2 && r2 != q2:
		return false // retries
	}
	return true
}

// bucket tests the bucket b read as the words w (as they lie in memory) for
// v, as lookup would.
func (modelReader) bucket(t *table, b uint64, raw []uint64, v uint32) bool {
	w := make([]uint64, len(raw))
	for i, x := range raw {
		w[i] = le64(x) // as loadWord gives it
	}
	var lo, hi uint64
	switch len(w) {
	case 1:
		lo = w[0]
		if t.class == class8 {
			lo >>= b & 1 * 32
		}
	case 2:
		lo = join(w[0], w[1], b*uint64(t.bbits)&63)
	case 3:
		sh := b * uint64(t.bbits) & 63
		lo, hi = join(w[0], w[1], sh), join(w[1], w[2], sh)
	}
	mlo, mhi := t.match(lo, hi, v) // an expiring table's: the keys, of any generation
	return mlo|mhi != 0
}

// modelFilter is a small filter filled with random hashes until an insert
// fails, and those hashes.
func modelFilter(t *testing.T, cfg Config, seed uint64) (*ConcurrentFilter[uint64], []uint64) {
	c := mustNewConcurrent[uint64](t, cfg)
	r := newRand(seed)
	var live []uint64
	for {
		h := r.Uint64()
		if err := c.InsertHash(h); err != nil {
			return c, live
		}
		live = append(live, h)
	}
}

// clone is a copy of c that a recorded operation may change.
func clone(c *ConcurrentFilter[uint64]) *ConcurrentFilter[uint64] {
	return NewConcurrentFrom(c.Snapshot())
}

// modelShapes are the tables the model check runs on: every probe class,
// both layouts, buckets that straddle words, and a growable table.
var modelShapes = []Config{
	{Capacity: 200, FingerprintBits: 8},                      // class8: half a word a bucket
	{Capacity: 200, FingerprintBits: 11},                     // narrow, nibble-aligned, straddling
	{Capacity: 200, FingerprintBits: 16},                     // class16: a word a bucket
	{Capacity: 200, FingerprintBits: 20},                     // wide: two or three words
	{Capacity: 200, FingerprintBits: 13, Layout: SemiSorted}, // whole-bucket rewrites
	{Capacity: 200, FingerprintBits: 21, Layout: SemiSorted},
	{Capacity: 200, FingerprintBits: 4, Layout: SemiSorted},
}

// TestConcurrentModelMoves checks every interleaving of a reader with inserts that
// displace fingerprints along paths of 1, 2 and 3 or more moves.
func TestConcurrentModelMoves(t *testing.T) {
	for _, cfg := range modelShapes {
		t.Run(fmt.Sprintf("%v/f=%d", cfg.Layout, cfg.FingerprintBits), func(t *testing.T) {
			total := 0
			for _, run := range displacingRuns(t, cfg) {
				n, err := run.check(productionReader)
				if err != nil {
					t.Fatalf("%d moves: %v", run.sessions()-1, err)
				}
				total += n
			}
			t.Logf("%d interleavings", total)
		})
	}
}

// displacingRuns returns recorded inserts into a full filter of shape cfg
// whose paths move 1, 2, and 3 or more fingerprints.
func displacingRuns(t *testing.T, cfg Config) []*modelRun {
	runs := make([]*modelRun, 3) // by moves: 1, 2, 3 or more
	found := 0
	for seed := uint64(1); seed < 50 && found < len(runs); seed++ {
		c, live := modelFilter(t, cfg, seed)
		// Free one slot or two: the paths to them have all lengths.
		free := 1 + int(seed%2)
		for _, h := range live[:free] {
			c.DeleteHash(h)
		}
		live = live[free:]
		r := newRand(seed + 100)
		for try := 0; try < 100 && found < len(runs); try++ {
			h := r.Uint64()
			d := clone(c)
			var err error
			run := record(d, live, func() { err = d.InsertHash(h) })
			moves := run.sessions() - 1
			if err != nil || moves < 1 || runs[min(moves, 3)-1] != nil {
				continue
			}
			runs[min(moves, 3)-1] = run
			found++
		}
	}
	if found < len(runs) {
		t.Fatalf("%+v: found inserts with paths of %d of the 3 lengths", cfg, found)
	}
	return runs
}

// TestConcurrentModelFailures checks that inserts that fail (a whole search without a
// free slot, or too many duplicates) store nothing at all.
func TestConcurrentModelFailures(t *testing.T) {
	for _, cfg := range modelShapes {
		c, live := modelFilter(t, cfg, 1)
		r := newRand(7)
		failed := 0
		for try := 0; try < 200 && failed < 3; try++ {
			h := r.Uint64()
			var err error
			run := record(c, live, func() { err = c.InsertHash(h) })
			if err == nil {
				live = append(live, h)
				continue
			}
			if !errors.Is(err, ErrFull) {
				t.Fatal(err)
			}
			failed++
			if len(run.events) != 0 {
				t.Fatalf("%+v: a failed insert made %d stores", cfg, len(run.events))
			}
		}
		if failed == 0 {
			t.Fatalf("%+v: no insert failed", cfg)
		}
		d := mustNewConcurrent[uint64](t, cfg)
		for range 2 * slotsPerBucket {
			if err := d.InsertHash(1); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if run := record(d, nil, func() { err = d.InsertHash(1) }); !errors.Is(err, ErrTooManyDuplicates) || len(run.events) != 0 {
			t.Fatalf("%+v: a ninth copy: %v after %d stores", cfg, err, len(run.events))
		}
	}
}

// TestConcurrentModelGrowth checks every interleaving of a reader with an insert
// that doubles a growable table (building the new table, inserting into it,
// with displacements, then publishing it), and with Reset and Delete.
func TestConcurrentModelGrowth(t *testing.T) {
	for _, layout := range layouts {
		cfg := Config{Capacity: 30, MaxCapacity: 240, FingerprintBits: 10, Layout: layout}
		c := mustNewConcurrent[uint64](t, cfg)
		doublings := int(c.c.cur.Load().t.g)
		r := newRand(3)
		var live []uint64
		grew := 0
		for len(live) < cfg.MaxCapacity {
			h := r.Uint64()
			d := clone(c)
			run := record(d, live, func() { _ = d.InsertHash(h) })
			published := false
			for _, e := range run.events {
				published = published || e.publish
			}
			if published {
				grew++
				if _, err := run.check(productionReader); err != nil {
					t.Fatalf("%v, doubling to %d buckets: %v", layout, d.Slots()/4, err)
				}
			}
			if err := c.InsertHash(h); err != nil {
				t.Fatal(err)
			}
			live = append(live, h)
		}
		if grew != doublings || grew == 0 {
			t.Fatalf("%v: %d doublings checked, want %d", layout, grew, doublings)
		}
		for _, h := range live[:20] { // deletes: the others stay found
			d := clone(c)
			run := record(d, live[20:], func() { d.DeleteHash(h) })
			if _, err := run.check(productionReader); err != nil {
				t.Fatalf("%v, delete: %v", layout, err)
			}
		}
		d := clone(c)
		run := record(d, nil, d.Reset)
		if len(run.events) != 1 || !run.events[0].publish {
			t.Fatalf("Reset made %d stores; want one publication", len(run.events))
		}
	}
}

// TestConcurrentModelFindsBrokenOrders shows that the check catches a
// broken protocol. The same recorded inserts, with their write sessions
// applied from the key's bucket towards the free end, lose a key in every
// case. Readers that skip a check lose keys too: one that validates
// nothing; and, through torn reads of semi-sorted buckets (rewritten whole),
// one that validates only one of the two buckets or accepts an odd version.
// (For a packed move alone either validation would do: the reader that read
// the destination before the move and the source after it sees both
// sessions between its two loads of either version.)
func TestConcurrentModelFindsBrokenOrders(t *testing.T) {
	broken := map[string]modelReader{
		"none":          {},
		"bucket 1 only": {validate1: true, checkOdd: true},
		"bucket 2 only": {validate2: true, checkOdd: true},
		"odd versions":  {validate1: true, validate2: true},
	}
	caught := map[string]int{}
	runs := 0
	for _, cfg := range modelShapes {
		for _, run := range displacingRuns(t, cfg) {
			runs++
			rev := *run
			rev.events = reverseSessions(run.events)
			if _, err := rev.check(productionReader); err != nil {
				caught["reversed path"]++
			} else {
				t.Errorf("%+v: a path of %d moves applied from the key's end lost no key", cfg, run.sessions()-1)
			}
			for name, r := range broken {
				if _, err := run.check(r); err != nil {
					caught["reader checks "+name]++
				}
			}
		}
	}
	for name := range broken {
		if caught["reader checks "+name] == 0 {
			t.Errorf("a reader that checks %s never lost a key", name)
		}
	}
	t.Logf("of %d recorded inserts, caught: %v", runs, caught)
}

// reverseSessions returns events with their write sessions (a version going
// odd, the stores, the version going even) in the opposite order.
func reverseSessions(events []cevent) []cevent {
	var sessions [][]cevent
	for i := 0; i < len(events); {
		j := i + 1
		for !events[j].version {
			j++
		}
		sessions = append(sessions, events[i:j+1])
		i = j + 1
	}
	var out []cevent
	for k := len(sessions) - 1; k >= 0; k-- {
		out = append(out, sessions[k]...)
	}
	return out
}

// TestConcurrentModelExpiring checks every interleaving of a reader with the
// writes of an expiring filter (Generations 4) that change stored slots: an
// Advance, which clears a generation in place; an InsertUnique that moves a
// key of an older generation to the current one; a Delete; and inserts that
// displace. Every key live through the write must stay found; those the
// Advance expires and the deleted one may go.
func TestConcurrentModelExpiring(t *testing.T) {
	for _, cfg := range modelShapes {
		cfg.Generations = 4
		t.Run(fmt.Sprintf("%v/f=%d", cfg.Layout, cfg.FingerprintBits), func(t *testing.T) {
			c := mustNewConcurrent[uint64](t, cfg)
			r := newRand(uint64(cfg.FingerprintBits))
			var gens [4][]uint64 // the hashes stored in each generation
			for g := range gens {
				if g > 0 {
					c.Advance()
				}
				for c.Len() < (g+1)*cfg.Capacity/4 {
					k := r.Uint64()
					if c.Insert(k) != nil {
						break
					}
					gens[g] = append(gens[g], c.Hash(k))
				}
			}
			all := append(append(append(append([]uint64(nil), gens[0]...), gens[1]...), gens[2]...), gens[3]...)
			later := all[len(gens[0]):]
			check := func(name string, run *modelRun, minSessions int) {
				t.Helper()
				if run.sessions() < minSessions {
					t.Fatalf("%s: %d write sessions", name, run.sessions())
				}
				n, err := run.check(productionReader)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				t.Logf("%s: %d sessions, %d interleavings", name, run.sessions(), n)
			}
			d := clone(c)
			check("Advance", record(d, later, func() { d.Advance() }), 1)
			// InsertUnique of a generation-0 key refreshes its slot in place.
			d = clone(c)
			k := r.Uint64()
			_ = d.Insert(k) // a key of our own, to refresh
			d.Advance()
			check("InsertUnique", record(d, append(later, d.Hash(k)), func() { _, _ = d.InsertUnique(k) }), 1)
			d = clone(c)
			check("Delete", record(d, all[1:], func() { d.DeleteHash(all[0]) }), 1)
			// Inserts into the full filter, until one displaces.
			for try := 0; ; try++ {
				if try == 200 {
					t.Fatal("no insert displaced")
				}
				d = clone(c)
				stored := all
				for range try / 10 { // fuller, as tries fail: more full buckets
					if h := r.Uint64(); d.InsertHash(h) == nil {
						stored = append(stored[:len(stored):len(stored)], h)
					}
				}
				h := r.Uint64()
				var err error
				run := record(d, stored, func() { err = d.InsertHash(h) })
				if err == nil && run.sessions() >= 2 {
					check("displacing insert", run, 2)
					break
				}
			}
		})
	}
}

// TestConcurrentModelTwoWriters checks every interleaving of a reader with
// two writers at once: pairs of writes recorded from the same table, whose
// stripes (those of the buckets each writes, and of its key's two) are
// apart, as stripe locks make every two writers that run at once, one of
// them displacing. Their stores are merged in every order, and the
// reader's loads placed at every point between them; a word both change
// (buckets share words) gets the bits of each.
func TestConcurrentModelTwoWriters(t *testing.T) {
	for _, cfg := range modelShapes {
		t.Run(fmt.Sprintf("%v/f=%d", cfg.Layout, cfg.FingerprintBits), func(t *testing.T) {
			c, live := modelFilter(t, cfg, 5)
			for _, h := range live[:2] { // room for inserts, and paths to it
				c.DeleteHash(h)
			}
			live = live[2:]
			type write struct {
				events  []cevent
				stripes map[uint64]bool
				deleted uint64 // the hash a delete removed, else 0
				claim   bool   // an insert into a free slot without a lock
			}
			s := c.c.cur.Load()
			stripesOf := func(run *modelRun, h uint64) map[uint64]bool {
				m := map[uint64]bool{}
				b1, _, b2, _ := s.t.place(h)
				m[b1&s.smask], m[b2&s.smask] = true, true
				for _, e := range run.events {
					if e.version {
						m[e.i] = true
						continue
					}
					for bit := range uint64(64) { // the buckets of the bits it flips
						if e.v>>bit&1 != 0 {
							m[(e.i*64+bit)/uint64(s.t.bbits)&s.smask] = true
						}
					}
				}
				return m
			}
			var displacing, others []write
			r := newRand(11)
			for try := 0; try < 400 && (len(displacing) < 3 || len(others) < 12); try++ {
				h, del := r.Uint64(), try%3 == 2
				if del {
					h = live[r.IntN(len(live))]
				}
				d := clone(c)
				var err error
				run := record(d, nil, func() {
					if del {
						d.DeleteHash(h)
					} else {
						err = d.InsertHash(h)
					}
				})
				if err != nil || len(run.events) == 0 {
					continue
				}
				w := write{events: run.events, stripes: stripesOf(run, h), claim: !del && run.sessions() == 0 && s.free}
				if del {
					w.deleted = h
				}
				if !del && run.sessions() >= 2 && len(displacing) < 3 {
					displacing = append(displacing, w)
				} else {
					others = append(others, w)
				}
			}
			if len(displacing) == 0 || len(others) == 0 {
				t.Fatalf("%d displacing writes, %d others", len(displacing), len(others))
			}
			// A claim takes no stripe: it runs beside any write whose bits
			// are not its slot's (two claims of one slot, or a claim of a
			// path's free end, are told apart by the compare-and-swap).
			disjoint := func(a, b write) bool {
				for _, e := range a.events {
					for _, f := range b.events {
						if !e.version && !f.version && e.i == f.i && e.v&f.v != 0 {
							return false
						}
					}
				}
				return true
			}
			outer := displacing
			for _, w := range others {
				if w.deleted != 0 {
					outer = append(outer[:len(outer):len(outer)], w)
				}
			}
			// Claims into buckets those writes hold, found among random keys.
			for try, found := 0, 0; s.free && try < 20000 && found < 8; try++ {
				h := r.Uint64()
				b1, _, b2, _ := s.t.place(h)
				near := false
				for _, a := range outer {
					near = near || a.stripes[b1&s.smask] || a.stripes[b2&s.smask]
				}
				if !near {
					continue
				}
				d := clone(c)
				var err error
				run := record(d, nil, func() { err = d.InsertHash(h) })
				if err == nil && len(run.events) > 0 && run.sessions() == 0 {
					others = append(others, write{events: run.events, stripes: stripesOf(run, h), claim: true})
					found++
				}
			}
			pairs, total, shared, racing := 0, 0, 0, 0 // shared: pairs that change one word, each its bits
			for _, a := range outer {
				for _, b := range others {
					apart := true
					for i := range a.stripes {
						apart = apart && !b.stripes[i]
					}
					if !apart && !(b.claim && disjoint(a, b)) {
						continue
					}
					if !apart {
						racing++
					}
					run := &modelRun{start: s, words: append([]uint64(nil), s.words...), events: a.events, other: b.events}
					for i := range s.seq {
						run.seq = append(run.seq, s.seq[i].Load())
					}
					for _, h := range live {
						if h != b.deleted {
							run.live = append(run.live, h)
						}
					}
					n, err := run.check(productionReader)
					if err != nil {
						t.Fatalf("a write of %d stores beside one of %d: %v", len(a.events), len(b.events), err)
					}
					pairs++
					total += n
				wordsShared:
					for _, e := range a.events {
						for _, f := range b.events {
							if !e.version && !f.version && e.i == f.i {
								shared++
								break wordsShared
							}
						}
					}
				}
			}
			if pairs == 0 || s.free && racing == 0 {
				t.Fatalf("%d pairs of writes apart, %d of a claim in a bucket another write holds", pairs, racing)
			}
			t.Logf("%d pairs (%d sharing a word, %d a claim in a held bucket), %d interleavings", pairs, shared, racing, total)
		})
	}
}
