package runs

import (
	"math/rand"
	"testing"
)

// The interval set answers as a plain set does, through any mix of adds and
// removes, and keeps its intervals sorted, disjoint and apart.
func TestRunIDsActsAsASet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var s idSet
	want := map[int64]bool{}
	for step := 0; step < 20000; step++ {
		n := int64(r.Intn(64))
		if r.Intn(2) == 0 {
			s.add(n)
			want[n] = true
		} else {
			s.remove(n)
			delete(want, n)
		}
		for m := int64(-1); m <= 65; m++ {
			if s.has(m) != want[m] {
				t.Fatalf("step %d: has(%d) = %v, want %v (%v)", step, m, s.has(m), want[m], s.iv)
			}
		}
		for i, iv := range s.iv {
			if iv[0] >= iv[1] || i > 0 && s.iv[i-1][1] >= iv[0] {
				t.Fatalf("step %d: intervals %v", step, s.iv)
			}
		}
	}
}

// A row of failed starts is one interval, and committed ids leave none.
func TestRunIDsStayCompact(t *testing.T) {
	var s idSet
	for n := int64(0); n < 1000; n++ {
		s.add(n)
		if n >= 500 {
			s.remove(n) // committed
		}
	}
	if len(s.iv) != 1 || s.iv[0] != [2]int64{0, 500} {
		t.Fatalf("intervals %v, want [[0 500]]", s.iv)
	}
}
