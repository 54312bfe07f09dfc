package runs

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/snapshot"
)

// IDFile is the file of the state directory that holds the bound of the
// run ids reserved so far (docs/run-wait.md, "Run ids and source").
const IDFile = "run-ids"

// IDLeaseSize is how many ids one write of IDFile reserves.
const IDLeaseSize = 1024

// idLease is the durable reservation of run ids, as the event journal
// reserves its sequence numbers: no id at or above reserved is handed out,
// and reserved is on disk before any id below it is, so a daemon started
// on the same state directory (after a crash too) starts above every id an
// earlier one may have given. Without a state directory (StartIDs never
// called) ids start at 0 and nothing bounds them. The table's lock guards
// every field but write, which serialises the writes (taken without it).
type idLease struct {
	store    *snapshot.Store
	base     int64 // the first id of this daemon: ids below it are an earlier one's
	reserved int64
	write    *sync.Mutex
}

func newIDLease() idLease { return idLease{reserved: math.MaxInt64, write: &sync.Mutex{}} }

// StartIDs makes run ids unique for the state directory of store: this
// daemon's ids start at the bound IDFile holds, and a first lease is
// reserved above it. It is called without mu, the table's lock, before
// serving. A file that cannot be read or holds no number (it is only ever
// replaced atomically, so only outside damage does that) starts the ids at
// the current time in microseconds, above any bound a lease could have
// reached; the error says so. A failed write leaves the table without ids
// until a later start can write one (TakeID fails unavailable.run_ids
// meanwhile).
func (t *Table) StartIDs(mu sync.Locker, store *snapshot.Store) error {
	base, rerr := store.ReadCounter(IDFile)
	if rerr != nil {
		base = time.Now().UnixMicro()
	}
	mu.Lock()
	t.ids.store, t.ids.base, t.ids.reserved = store, base, base
	t.next = max(t.next, base)
	mu.Unlock()
	werr := t.reserveIDs(mu)
	if rerr != nil {
		return rerr
	}
	return werr
}

// TakeID gives rec the next run id, first reserving more when fewer than
// half a lease are left; it is called without mu, the table's lock. The id
// is never handed out again, even if the start fails; until the start
// commits it is not a run: unknown, not expired (docs/run-wait.md, "Run
// ids and source"). Errors: unavailable.run_ids (no id is reserved and the
// reservation cannot be written).
func (t *Table) TakeID(mu sync.Locker, rec *Record) *errcode.Error {
	mu.Lock()
	low := t.ids.store != nil && t.next >= t.ids.reserved-IDLeaseSize/2
	mu.Unlock()
	var werr error
	if low {
		werr = t.reserveIDs(mu)
	}
	mu.Lock()
	defer mu.Unlock()
	if t.next >= t.ids.reserved {
		msg := "no run id is reserved beyond r%d"
		if werr != nil {
			msg += ": " + werr.Error()
		}
		return errcode.New(errcode.UnavailableRunIds, map[string]any{"reserved": t.ids.reserved}, msg, t.ids.reserved)
	}
	rec.n, rec.id = t.next, "r"+strconv.FormatInt(t.next, 10)
	t.next++
	t.notRuns.add(rec.n)
	return nil
}

// reserveIDs writes a new bound, a lease above the ids handed out, unless
// another call already did; mu is not held (the write is disk work).
func (t *Table) reserveIDs(mu sync.Locker) error {
	l := t.ids.write
	l.Lock()
	defer l.Unlock()
	mu.Lock()
	ids := &t.ids
	if t.next < ids.reserved-IDLeaseSize/2 {
		mu.Unlock()
		return nil
	}
	store, bound := ids.store, max(ids.reserved, t.next)+IDLeaseSize
	mu.Unlock()
	if err := store.WriteCounter(IDFile, bound); err != nil {
		t.log.Error("run ids cannot be reserved", "err", err)
		return err
	}
	mu.Lock()
	ids.reserved = max(ids.reserved, bound)
	mu.Unlock()
	return nil
}

// idSet is a set of run numbers, kept as sorted, disjoint, non-adjacent
// half-open intervals [lo, hi): the ids handed out that are not (or never
// became) runs (docs/run-wait.md, "Run ids and source"). An id joins it
// when a start takes it and leaves it when that start commits, so a run of
// failed starts costs one interval and a committed one nothing.
type idSet struct {
	iv [][2]int64
}

// at returns the index of the first interval ending after n.
func (s *idSet) at(n int64) int {
	return sort.Search(len(s.iv), func(i int) bool { return s.iv[i][1] > n })
}

// has reports whether n is in the set.
func (s *idSet) has(n int64) bool {
	i := s.at(n)
	return i < len(s.iv) && s.iv[i][0] <= n
}

// add puts n in the set.
func (s *idSet) add(n int64) {
	i := s.at(n - 1) // the first interval that ends at n or later
	if i < len(s.iv) && s.iv[i][0] <= n && n < s.iv[i][1] {
		return
	}
	left := i < len(s.iv) && s.iv[i][1] == n
	j := i
	if left {
		j = i + 1
	}
	right := j < len(s.iv) && s.iv[j][0] == n+1
	switch {
	case left && right:
		s.iv[i][1] = s.iv[j][1]
		s.iv = slices.Delete(s.iv, j, j+1)
	case left:
		s.iv[i][1] = n + 1
	case right:
		s.iv[j][0] = n
	default:
		s.iv = slices.Insert(s.iv, i, [2]int64{n, n + 1})
	}
}

// remove takes n out of the set.
func (s *idSet) remove(n int64) {
	i := s.at(n)
	if i == len(s.iv) || s.iv[i][0] > n {
		return
	}
	lo, hi := s.iv[i][0], s.iv[i][1]
	switch {
	case lo == n && hi == n+1:
		s.iv = slices.Delete(s.iv, i, i+1)
	case lo == n:
		s.iv[i][0] = n + 1
	case hi == n+1:
		s.iv[i][1] = n
	default:
		s.iv[i][1] = n
		s.iv = slices.Insert(s.iv, i+1, [2]int64{n + 1, hi})
	}
}
