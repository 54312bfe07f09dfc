package service

import (
	"slices"
	"sort"
)

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
