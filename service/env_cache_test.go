package service

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/service/request"
)

// childEnvByMap is childEnv as one map of every variable, sorted at the
// end: the reference the merge of childEnvFrom must equal.
func childEnvByMap(daemon []string, extra map[string]string, unset []string, paneID, address string) []string {
	vars := map[string]string{"TERM": "xterm-256color"}
	for _, kv := range daemon {
		k, v, ok := strings.Cut(kv, "=")
		if ok && !isPlumbing(k) && !reserved[k] && k != "TERM" && !slices.Contains(unset, k) {
			vars[k] = v
		}
	}
	for k, v := range extra {
		vars[k] = v
	}
	vars["SIGNALTTY_PANE"] = paneID
	vars["SIGNALTTY_ADDRESS"] = address
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// The base computed once and merged with each child's own variables gives
// exactly the map-built environment, for names that are prefixes of each
// other, names the extra variables replace (TERM, plumbing, the reserved
// names), names unset removes, repeated names and entries without "=".
func TestChildEnvFromTheBaseIsTheWholeEnvironmentSorted(t *testing.T) {
	names := []string{"A", "AB", "A_", "B", "Ba", "HOME", "PATH", "TERM", "NOTIFY_SOCKET", "LISTEN_FDS",
		"SIGNALTTY_PANE", "SIGNALTTY_ADDRESS", "SIGNALTTY_RUN", "Z", "_", "a", "zz"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var daemon []string
		for range r.IntN(12) {
			n := names[r.IntN(len(names))]
			switch r.IntN(10) {
			case 0:
				daemon = append(daemon, n) // no "="
			case 1:
				daemon = append(daemon, n+"=") // empty value
			default:
				daemon = append(daemon, fmt.Sprintf("%s=v%d=x", n, r.IntN(3)))
			}
		}
		extra := map[string]string{}
		for range r.IntN(5) {
			extra[names[r.IntN(len(names))]] = fmt.Sprint("e", r.IntN(3))
		}
		var unset []string
		for range r.IntN(3) {
			unset = append(unset, names[r.IntN(len(names))])
		}
		unset = request.Names(unset)
		want := childEnvByMap(daemon, extra, unset, "pane_1", "unix:/s")
		if got := childEnvFrom(childBase(daemon), extra, unset, "pane_1", "unix:/s"); !slices.Equal(got, want) {
			t.Fatalf("case %d: daemon %q extra %v unset %q:\n got  %q\n want %q", i, daemon, extra, unset, got, want)
		}
	}
}

// BenchmarkChildEnv: a run's child environment from this process's
// environment; ByMap is the environment built whole for every child,
// FromBase the base computed once and merged (what starts use).
func BenchmarkChildEnv(b *testing.B) {
	daemon := os.Environ()
	extra := map[string]string{"SIGNALTTY_RUN": "r1"}
	b.Run("ByMap", func(b *testing.B) {
		for b.Loop() {
			childEnvByMap(daemon, extra, nil, "pane_1", "unix:/s")
		}
	})
	base := childBase(daemon)
	b.Run("FromBase", func(b *testing.B) {
		for b.Loop() {
			childEnvFrom(base, extra, nil, "pane_1", "unix:/s")
		}
	})
}
