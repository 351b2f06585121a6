package cuckoo

import (
	"runtime"
	"sync/atomic"
)

// The writers' locks of a ConcurrentFilter (protocol in concurrent.go):
// one a stripe, stripe(b) = b & smask of the current table, so that
// writers of other stripes go on. A writer holds the stripes of the
// buckets it changes, taken in ascending order, so no two writers wait for
// each other in a cycle; what changes more (growth, Advance, Reset, Merge)
// or reads a consistent table (encodings, Clone, Snapshot) holds them all.

// stripeLock is a stripe's lock and its share of Len, in one word: n<<1
// | held, n the keys this stripe's holders added less those they removed,
// so that a writer's unlock stores its count too. Each has a cache line
// of its own: writers that take stripes sharing a line would take the line
// from each other's cores.
type stripeLock struct {
	state atomic.Uint64
	pend  int32 // a growable filter's count changes not yet in approx; under the lock
	_     [64 - 12]byte
}

// locksFor is the locks of a filter whose largest table has m buckets:
// one for each stripe of that table (ctableOver's count).
func locksFor(m uint64) []stripeLock { return make([]stripeLock, stripesFor(m)) }

// spinTries is how many times lock tries a held stripe before it yields:
// a stripe is held for one insert, about 100 ns.
const spinTries = 64

// lock takes stripe i, waiting while another writer holds it.
func (c *concurrent) lock(i uint64) { c.locks[i].lock(c) }

// lock is concurrent.lock of stripe l, its compare-and-swap inline.
func (l *stripeLock) lock(c *concurrent) {
	if x := l.state.Load(); x&1 != 0 || !l.state.CompareAndSwap(x, x|1) {
		c.wait(l)
	}
}

// tryLock takes stripe i if no writer holds it.
func (c *concurrent) tryLock(i uint64) bool { return c.locks[i].try() }

// try takes the stripe if no writer holds it.
func (l *stripeLock) try() bool {
	x := l.state.Load()
	return x&1 == 0 && l.state.CompareAndSwap(x, x|1)
}

// wait is lock for a held stripe: it spins, then yields, until it takes it,
// and returns its state before.
func (c *concurrent) wait(l *stripeLock) uint64 {
	for n := 0; ; n++ {
		if x := l.state.Load(); x&1 == 0 && l.state.CompareAndSwap(x, x|1) {
			return x
		}
		if n >= spinTries {
			runtime.Gosched()
		}
	}
}

// unlock releases stripe i. An atomic store (XCHG on amd64) measured as
// fast as a plain MOV in assembly, whose call cost 17 instructions an
// insert (f = 13).
func (c *concurrent) unlock(i uint64) { c.locks[i].unlock() }

// unlock is concurrent.unlock of stripe l.
func (l *stripeLock) unlock() {
	l.state.Store(l.state.Load() &^ 1)
}

// unlockAdding releases stripe i of table s, whose holder added d keys
// (removed, for d < 0), in the same store. In a growable table the change
// also goes to approx once it reaches the table's batch, so that approx is
// within a batch a stripe of Len.
func (c *concurrent) unlockAdding(s *ctable, i uint64, d int64) {
	l := &c.locks[i]
	if d != 0 && s.batch != 0 {
		c.pending(s, l, d)
	}
	l.release(d)
}

// release unlocks the stripe, its holder having added d keys.
func (l *stripeLock) release(d int64) { l.state.Store(l.state.Load()&^1 + uint64(d)<<1) }

// pending is unlockAdding's change to a growable table's approx.
func (c *concurrent) pending(s *ctable, l *stripeLock, d int64) {
	if l.pend += int32(d); l.pend >= s.batch || l.pend <= -s.batch {
		c.approx.Add(int64(l.pend))
		l.pend = 0
	}
}

// lock2 takes stripes a and b, in ascending order; they may be one. Each
// try inlines, as lock does not (38 instructions a call less).
func (c *concurrent) lock2(a, b uint64) {
	l := c.locks[:len(c.locks):len(c.locks)]
	lo, hi := &l[min(a, b)], &l[max(a, b)]
	if !lo.try() {
		c.wait(lo)
	}
	if hi != lo && !hi.try() {
		c.wait(hi)
	}
}

// unlock2 releases stripes a and b, a's holder having added d keys.
func (c *concurrent) unlock2(s *ctable, a, b uint64, d int64) {
	if b != a {
		c.locks[b].unlock()
	}
	c.unlockAdding(s, a, d)
}

// stop takes every stripe of the current table, in order, so that no
// other writer runs, and sets count to Len, exact meanwhile: the single
// writer's code (insertAll) keeps it. Only the current table's stripes
// hold counts: tables grow, and reset clears every count. It takes mu first, as a long
// displacement does, for path; and as only stop's holder replaces the
// table (growth, Reset, Merge), the stripes it holds are those writers
// take until it publishes a table of more stripes.
func (c *concurrent) stop() {
	c.mu.Lock()
	c.held = c.cur.Load().smask + 1
	for i := range c.held {
		c.lock(i)
	}
	c.count = c.lenOf(c.held)
	c.stopped = c.count
}

// start lets writers run again, count's change since stop in stripe 0's
// share and in approx, the stripes stop held no longer pending in it.
func (c *concurrent) start() {
	d := int64(c.count - c.stopped)
	pend := int64(0)
	for i := range c.held {
		pend += int64(c.locks[i].pend)
		c.locks[i].pend = 0
	}
	c.approx.Add(d + pend)
	for i := c.held - 1; i > 0; i-- {
		c.unlock(i)
	}
	c.locks[0].release(d) // approx done
	c.mu.Unlock()
}

// len is Len: exact while no write is under way.
func (c *concurrent) len() int { return c.lenOf(uint64(len(c.locks))) }

// lenOf is len for a filter whose tables have had stripes stripes at most.
func (c *concurrent) lenOf(stripes uint64) int {
	n := int64(0)
	for i := range c.locks[:stripes] {
		n += int64(c.locks[i].state.Load()) >> 1
	}
	return int(n)
}

// lockSet is a displacement's stripes, sorted, each once.
type lockSet struct {
	n int
	s [maxPathStripes]uint32
}

// maxPathStripes bounds the stripes of a displacement the writer takes
// alone; a longer one holds every stripe.
const maxPathStripes = 32

// add adds stripe i, reporting false if the set is full.
func (l *lockSet) add(i uint64) bool {
	k := 0
	for k < l.n && uint64(l.s[k]) < i {
		k++
	}
	if k < l.n && uint64(l.s[k]) == i {
		return true
	}
	if l.n == maxPathStripes {
		return false
	}
	for j := l.n; j > k; j-- { // a few: not worth copy's call
		l.s[j] = l.s[j-1]
	}
	l.s[k] = uint32(i)
	l.n++
	return true
}

func (c *concurrent) lockSet(l *lockSet) {
	for _, i := range l.s[:l.n] {
		c.lock(uint64(i))
	}
}

// unlockSet releases the stripes of l, the holder of its first having
// added d keys.
func (c *concurrent) unlockSet(s *ctable, l *lockSet, d int64) {
	for _, i := range l.s[1:l.n] {
		c.unlock(uint64(i))
	}
	c.unlockAdding(s, uint64(l.s[0]), d)
}
