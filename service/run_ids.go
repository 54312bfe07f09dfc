package service

import (
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/snapshot"
)

// RunIDFile is the file of the state directory that holds the bound of the
// run ids reserved so far (docs/run-wait.md, "Run ids and source").
const RunIDFile = "run-ids"

// runIDLease is how many ids one write of RunIDFile reserves.
const runIDLease = 1024

// idLease is the durable reservation of run ids, as the event journal
// reserves its sequence numbers: no id at or above reserved is handed out,
// and reserved is on disk before any id below it is, so a daemon started
// on the same state directory (after a crash too) starts above every id an
// earlier one may have given. Without a state directory (StartRunIDs never
// called) ids start at 0 and nothing bounds them. s.mu guards every field
// but mu, which serialises the writes (taken without s.mu).
type idLease struct {
	store    *snapshot.Store
	base     int64 // the first id of this daemon: ids below it are an earlier one's
	reserved int64
	mu       *sync.Mutex
}

func newIDLease() idLease { return idLease{reserved: math.MaxInt64, mu: &sync.Mutex{}} }

// StartRunIDs makes run ids unique for the state directory of store: this
// daemon's ids start at the bound RunIDFile holds, and a first lease is
// reserved above it. Call it before serving. A file that cannot be read or
// holds no number (it is only ever replaced atomically, so only outside
// damage does that) starts the ids at the current time in microseconds,
// above any bound a lease could have reached; the error says so. A failed
// write leaves this daemon without ids until a later start can write one
// (Run.Start fails unavailable.run_ids meanwhile).
func (s *Service) StartRunIDs(store *snapshot.Store) error {
	base, rerr := store.ReadCounter(RunIDFile)
	if rerr != nil {
		base = time.Now().UnixMicro()
	}
	s.mu.Lock()
	s.runs.ids.store, s.runs.ids.base, s.runs.ids.reserved = store, base, base
	s.runs.next = max(s.runs.next, base)
	s.mu.Unlock()
	werr := s.reserveRunIDs()
	if rerr != nil {
		return rerr
	}
	return werr
}

// takeRunID hands out the next run id, first reserving more when fewer than
// half a lease are left; s.mu is not held. The id is never handed out
// again, even if the start fails; until the start commits it is not a run:
// unknown, not expired (docs/run-wait.md, "Run ids and source"). Errors:
// unavailable.run_ids (no id is reserved and the reservation cannot be
// written).
func (s *Service) takeRunID() (int64, *Error) {
	s.mu.Lock()
	low := s.runs.ids.store != nil && s.runs.next >= s.runs.ids.reserved-runIDLease/2
	s.mu.Unlock()
	var werr error
	if low {
		werr = s.reserveRunIDs()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs.next >= s.runs.ids.reserved {
		msg := "no run id is reserved beyond r%d"
		if werr != nil {
			msg += ": " + werr.Error()
		}
		return 0, newError(errcode.UnavailableRunIds, map[string]any{"reserved": s.runs.ids.reserved}, msg, s.runs.ids.reserved)
	}
	n := s.runs.next
	s.runs.next++
	s.runs.notRuns.add(n)
	return n, nil
}

// reserveRunIDs writes a new bound, a lease above the ids handed out, unless
// another call already did; s.mu is not held (the write is disk work).
func (s *Service) reserveRunIDs() error {
	l := s.runs.ids.mu
	l.Lock()
	defer l.Unlock()
	s.mu.Lock()
	ids := &s.runs.ids
	if s.runs.next < ids.reserved-runIDLease/2 {
		s.mu.Unlock()
		return nil
	}
	store, bound := ids.store, max(ids.reserved, s.runs.next)+runIDLease
	s.mu.Unlock()
	if err := store.WriteCounter(RunIDFile, bound); err != nil {
		s.log.Error("run ids cannot be reserved", "err", err)
		return err
	}
	s.mu.Lock()
	ids.reserved = max(ids.reserved, bound)
	s.mu.Unlock()
	return nil
}

// runIDs is a set of run numbers, kept as sorted, disjoint, non-adjacent
// half-open intervals [lo, hi): the ids handed out that are not (or never
// became) runs (docs/run-wait.md, "Run ids and source"). An id joins it when
// a start takes it and leaves it when that start commits, so a run of failed
// starts costs one interval and a committed one nothing.
type runIDs struct {
	iv [][2]int64
}

// at returns the index of the first interval ending after n.
func (s *runIDs) at(n int64) int {
	return sort.Search(len(s.iv), func(i int) bool { return s.iv[i][1] > n })
}

// has reports whether n is in the set.
func (s *runIDs) has(n int64) bool {
	i := s.at(n)
	return i < len(s.iv) && s.iv[i][0] <= n
}

// add puts n in the set.
func (s *runIDs) add(n int64) {
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
func (s *runIDs) remove(n int64) {
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
