package term

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Returning memory after a burst of output (docs/limits.md, "Memory handed
// back"): Go's collector runs when the heap has grown by GOGC percent of
// what was live after the last collection, and its background scavenger
// returns free pages to the system only down to about that goal. A burst of
// output (rows parsed, stored and dropped, emulators made) therefore leaves
// the process holding up to twice its live heap, as garbage not yet
// collected and as free pages, until the next collection, which an idle
// daemon does not reach for minutes. So when output has been quiet for
// between idleFreeQuiet and twice that (no output, and less than
// idleFreeBusy allocated, in a whole period of idleFreeQuiet), and a
// collection would give back at least idleFreeMin and at least half the
// live heap (worthFreeing), the daemon collects and returns the free pages at once
// (debug.FreeOSMemory), at most once per idleFreeInterval.
//
// Output arms the watch, and so does other work that leaves garbage
// (Memory.NoteWork: a snapshot save). It costs an atomic load per Write, and one
// timer while output continues (a wake-up every idleFreeQuiet); a quiet
// daemon has no timer at all.
const (
	idleFreeQuiet    = 500 * time.Millisecond
	idleFreeInterval = time.Second
	idleFreeMin      = 4 << 20
	idleFreeBusy     = 1 << 20 // allocated in one period: not quiet
)

// idleWatch arms a timer on the first output after a quiet period, and on
// each firing either sees that output continued (and waits again) or that
// it did not (and returns memory when that is worth it, then disarms).
type idleWatch struct {
	active atomic.Bool // output since the timer last fired

	mu       sync.Mutex
	off      bool
	armed    bool
	timer    *time.Timer
	lastFree time.Time
	allocs   uint64 // allocated() when the timer was last armed or fired
	frees    int64  // FreeOSMemory calls made (for tests)
	fires    int64  // timer firings (for tests)

	// Seams for tests: the clock, the allocation counter, the period (0: idleFreeQuiet), the
	// decision (nil: worthFreeing) and the freeing (nil: debug.FreeOSMemory).
	now    func() time.Time
	allocd func() uint64 // nil: heapAllocs
	period time.Duration
	worth  func() bool
	free   func()
}

// noteOutput is called by Terminal.Write; cheap when output is continuing.
func (w *idleWatch) noteOutput() {
	if w.active.Load() {
		return
	}
	w.active.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed || w.off {
		return
	}
	w.allocs = w.allocated()
	w.armLocked(w.quiet())
}

func (w *idleWatch) armLocked(d time.Duration) {
	w.armed = true
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
}

// fire runs on the timer.
func (w *idleWatch) fire() {
	w.mu.Lock()
	w.fires++
	allocs := w.allocated()
	busy := w.active.Swap(false) || allocs-w.allocs >= idleFreeBusy
	w.allocs = allocs
	if busy && !w.off {
		w.armLocked(w.quiet()) // output or allocation during the last period: not quiet yet
		w.mu.Unlock()
		return
	}
	now := w.clock()
	if wait := idleFreeInterval - now.Sub(w.lastFree); !w.lastFree.IsZero() && wait > 0 && !w.off {
		w.armLocked(wait) // freed recently: look again when allowed
		w.mu.Unlock()
		return
	}
	w.armed = false
	worth := w.worth
	if worth == nil {
		worth = worthFreeing
	}
	if w.off || !worth() {
		w.mu.Unlock()
		return
	}
	w.lastFree = now
	w.frees++
	free := w.free
	w.mu.Unlock()
	if free == nil {
		free = debug.FreeOSMemory
	}
	free()
}

func (w *idleWatch) allocated() uint64 {
	if w.allocd != nil {
		return w.allocd()
	}
	return heapAllocs()
}

func (w *idleWatch) quiet() time.Duration {
	if w.period > 0 {
		return w.period
	}
	return idleFreeQuiet
}

func (w *idleWatch) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// heapAllocs is the bytes allocated on the heap since the process started.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

var heapSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},                // marked live by the last collection
	{Name: "/memory/classes/heap/objects:bytes"}, // live plus garbage not yet swept
	{Name: "/memory/classes/heap/free:bytes"},    // free pages not yet returned
}

// reclaimable estimates what a collection and a scavenge would give back,
// and the live heap, in bytes.
func reclaimable() (gain, live uint64) {
	s := make([]metrics.Sample, len(heapSamples))
	copy(s, heapSamples)
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return 0, 0
		}
	}
	live, objects, free := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	if objects > live {
		gain = objects - live
	}
	return gain + free, live
}

// worthFreeing reports whether a collection now gives back at least
// idleFreeMin bytes and half the live heap. A collection's cost is in
// proportion to the live heap; the runtime's own (GOGC=100) comes when the
// garbage reaches the live heap, so these are at most twice as many as the
// runtime would make for the same allocation.
func worthFreeing() bool {
	gain, live := reclaimable()
	return gain >= idleFreeMin && gain >= live/2
}
