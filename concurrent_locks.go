package cuckoo

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The writers' locks of a ConcurrentFilter (protocol in concurrent.go):
// one a stripe, stripe(b) = b & smask of the current table, so that
// writers of other stripes go on. A writer holds the stripes of the
// buckets it changes, taken in ascending order, so no two writers wait for
// each other in a cycle; what changes more (growth, Advance, Reset, Merge)
// or reads a consistent table (encodings, Clone, Snapshot) holds them all.

// stripeLock is a stripe's lock and, in a table that is not free, its
// share of Len, in one word: n<<2 | parked<<1 | held, n the keys this
// stripe's holders added less those they removed, so that a writer's
// unlock stores its count too; parked, that a waiter sleeps (wait). Each
// has a cache line of its own: writers that take stripes sharing a line
// would take the line from each other's cores.
type stripeLock struct {
	state atomic.Uint64
	pend  int32 // a growable filter's count changes not yet in approx; under the lock
	_     [64 - 12]byte
}

const (
	lockHeld   = 1
	lockParked = 2
	lockShift  = 2 // the count's
)

// locksFor is the locks of a filter whose largest table has m buckets:
// one for each stripe of that table (ctableOver's count).
func locksFor(m uint64) []stripeLock { return make([]stripeLock, stripesFor(m)) }

// A waiting writer spins spinTries times (a stripe is held for one insert,
// about 100 ns), yields yieldTries times, then sleeps until the holder
// wakes it: with more goroutines than cores a waiter does not take the
// core of the holder it waits for.
const (
	spinTries  = 64
	yieldTries = 16
)

// parking is where waiters of every filter sleep: parking a waiter is
// rare, and a wake-up for another stripe only makes it look again.
var parking = struct {
	sync.Mutex
	cond sync.Cond
}{}

func init() { parking.cond.L = &parking.Mutex }

// lock takes stripe i, waiting while another writer holds it.
func (c *concurrent) lock(i uint64) { c.locks[i].lock() }

// lock takes the stripe, its compare-and-swap inline.
func (l *stripeLock) lock() {
	if !l.try() {
		l.wait()
	}
}

// tryLock takes stripe i if no writer holds it.
func (c *concurrent) tryLock(i uint64) bool { return c.locks[i].try() }

// try takes the stripe if no writer holds it.
func (l *stripeLock) try() bool {
	x := l.state.Load()
	return x&lockHeld == 0 && l.state.CompareAndSwap(x, x|lockHeld)
}

// wait is lock for a held stripe: it spins, yields, then sleeps, until it
// takes it.
func (l *stripeLock) wait() {
	for n := 0; !l.try(); n++ {
		switch {
		case n < spinTries:
		case n < spinTries+yieldTries:
			runtime.Gosched()
		default:
			l.park()
		}
	}
}

// park sleeps until the stripe is free, or may be: its holder's release
// wakes every sleeper once it sees the parked bit, which a sleeper sets
// holding parking's mutex, and the release takes that mutex to wake them,
// so no wake-up comes between a sleeper's test and its sleep.
func (l *stripeLock) park() {
	parking.Lock()
	for {
		x := l.state.Load()
		if x&lockHeld == 0 {
			break
		}
		if x&lockParked != 0 || l.state.CompareAndSwap(x, x|lockParked) {
			parking.cond.Wait()
		}
	}
	parking.Unlock()
}

// unlock releases stripe i. An atomic add (LOCK XADD on amd64), which
// tells a sleeper in the same instruction.
func (c *concurrent) unlock(i uint64) { c.locks[i].release(0) }

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

// release unlocks the stripe, its holder having added d keys, and wakes
// its sleepers; it inlines, wake does not.
func (l *stripeLock) release(d int64) {
	if l.state.Add(uint64(d)<<lockShift-lockHeld)&lockParked != 0 {
		l.wake()
	}
}

// wake wakes the stripe's sleepers.
func (l *stripeLock) wake() {
	l.state.And(^uint64(lockParked))
	parking.Lock()
	parking.cond.Broadcast()
	parking.Unlock()
}

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
		lo.wait()
	}
	if hi != lo && !hi.try() {
		hi.wait()
	}
}

// unlock2 releases stripes a and b, a's holder having added d keys.
func (c *concurrent) unlock2(s *ctable, a, b uint64, d int64) {
	if b != a {
		c.locks[b].release(0)
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

// len is Len: exact while no write is under way. A free table counts its
// filled slots (items), as its claims count nowhere; others sum the
// stripes' counts.
func (c *concurrent) len() int {
	if s := c.cur.Load(); s.free {
		return s.items()
	}
	return c.lenOf(uint64(len(c.locks)))
}

// lenOf is len for a filter whose tables have had stripes stripes at most.
func (c *concurrent) lenOf(stripes uint64) int {
	n := int64(0)
	for i := range c.locks[:stripes] {
		n += int64(c.locks[i].state.Load()) >> lockShift
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
