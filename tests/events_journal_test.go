package tests

// The event journal across crashes (docs/events.md, "Journal"): numbers
// never repeat, and a subscriber that resumes from the last seq it got
// receives every journaled event after it exactly once, or a clear error.

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

type streamed struct {
	Seq      int64  `json:"seq"`
	Source   string `json:"source"`
	Type     string `json:"type"`
	Resource string `json:"resource"`
}

// followLines parses `signaltty --json events --follow` output: the events,
// and the error that ended the stream (if any).
func followLines(t *testing.T, out string) (evs []streamed, errCode string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Event *streamed
			Error *struct{ Code string }
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue // a line cut by the daemon's death
		}
		switch {
		case line.Event != nil:
			evs = append(evs, *line.Event)
		case line.Error != nil:
			errCode = line.Error.Code
		}
	}
	return evs, errCode
}

// journalSeqs reads the journaled events from the segment files.
func journalSeqs(t *testing.T, dir string) map[int64]streamed {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "segment-*.jsonl"))
	out := map[int64]streamed{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			var e streamed
			if json.Unmarshal([]byte(l), &e) == nil && e.Seq > 0 {
				out[e.Seq] = e
			}
		}
	}
	return out
}

func TestEventNumbersNeverRepeatAcrossKill9(t *testing.T) {
	t.Parallel()
	rounds, budget := 200, 90*time.Second
	if testing.Short() {
		rounds = 30
	}
	dir := harness.TempDir(t)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seen := map[int64]streamed{} // every event any stream delivered, by seq
	type window struct{ after, last int64 }
	var complete []window // streams that resumed: they must hold every journaled event of (after, last]
	last, resumed, lost := int64(-1), 0, map[string]int{}
	began := time.Now()
	done := 0
	for ; done < rounds && time.Since(began) < budget; done++ {
		d := harness.Start(t, harness.Options{Dir: dir, WithoutRace: true})
		args := []string{"events", "--follow"}
		cursor := last
		if last >= 0 {
			args = append(args, "--after", strconv.FormatInt(last, 10))
		}
		sub := d.BackgroundCLI(t, args...)
		sub.WaitBlocked(t) // the stream follows: the kill lands while it does
		cli, env := d.CLIProgram(), d.ClientEnv()
		busy, first := make(chan struct{}), make(chan struct{})
		go func() { // no t here: the daemon dies under these calls
			defer close(busy)
			for j := 0; j < 4; j++ {
				c := exec.Command(cli, "workspace", "create", "--name", "w"+strconv.Itoa(j))
				c.Env = env
				c.Run()
				if j == 0 {
					close(first)
				}
			}
		}()
		<-first                                                    // one change committed, however slow the machine
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond) // the random kill moment, not synchronisation
		syscall.Kill(d.Pid(), syscall.SIGKILL)
		d.WaitExit(t, 10*time.Second)
		<-busy
		res := sub.Result(t, harness.CallTimeout)
		os.Remove(d.Socket)
		evs, code := followLines(t, res.Stdout)
		switch code {
		case "", "unavailable.daemon", "unavailable.shutdown", "internal": // the daemon died under it
		case "unavailable.journal", "conflict.history_lost": // a clear refusal: resynchronise from scratch
			lost[code]++
			last = -1
			continue
		default:
			t.Fatalf("round %d: the stream ended with %s: %s", done, code, res.Stderr)
		}
		prev := cursor
		for _, e := range evs {
			if e.Seq <= prev {
				t.Fatalf("round %d: seq %d after %d", done, e.Seq, prev)
			}
			if old, ok := seen[e.Seq]; ok && old != e {
				t.Fatalf("round %d: seq %d issued twice: %+v and %+v", done, e.Seq, old, e)
			} else if ok {
				t.Fatalf("round %d: event %d delivered again after a resume", done, e.Seq)
			}
			seen[e.Seq] = e
			prev = e.Seq
		}
		if len(evs) > 0 || cursor >= 0 {
			if cursor >= 0 {
				resumed++
				complete = append(complete, window{cursor, prev})
			}
			last = prev
		}
	}
	// Every resumed stream holds exactly the journaled events of its window.
	journaled := journalSeqs(t, filepath.Join(dir, "state", "signaltty", "events"))
	for _, w := range complete {
		var want, got []int64
		for seq := range journaled {
			if seq > w.after && seq <= w.last {
				want = append(want, seq)
			}
		}
		for seq := range seen {
			if seq > w.after && seq <= w.last {
				got = append(got, seq)
			}
		}
		sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
		sort.Slice(got, func(a, b int) bool { return got[a] < got[b] })
		if len(want) != len(got) {
			t.Fatalf("window (%d, %d]: delivered %v, journaled %v", w.after, w.last, got, want)
		}
		for i := range want {
			if want[i] != got[i] || journaled[want[i]] != seen[got[i]] {
				t.Fatalf("window (%d, %d]: delivered %v, journaled %v", w.after, w.last, got, want)
			}
		}
	}
	if resumed == 0 {
		t.Fatalf("no round resumed a stream (refusals: %v)", lost)
	}
	t.Logf("%d rounds, %d events, %d resumed streams, refusals %v", done, len(seen), resumed, lost)
}

// The CLI, varlinkctl and doctor show the journal: a replay from a cursor,
// the refusals, the status.
func TestEventsAfterCursorThroughCLIAndVarlinkctl(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	dir := harness.TempDir(t)
	d := harness.Start(t, harness.Options{Dir: dir})
	d.CreateWorkspace(t, "a")
	d.CreateWorkspace(t, "b")
	first := d.Status(t).Seq
	d.Stop(t)
	d = harness.Start(t, harness.Options{Dir: dir})
	d.CreateWorkspace(t, "c")
	ahead := strconv.FormatInt(d.Status(t).Seq+100, 10)
	d.Fail(t, "conflict.cursor_ahead", 5, "events", "--follow", "--after", ahead)
	r := d.Varlinkctl(t, "call", "--more", "dev.signaltty.Events.Subscribe", `{"after_seq":`+ahead+`}`)
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "conflict.cursor_ahead") {
		t.Fatalf("varlinkctl with a cursor ahead: %s", r)
	}
	doc := d.CLI(t, "doctor")
	if !strings.Contains(doc.Stdout, "event journal:") || !strings.Contains(doc.Stdout, "replay possible after seq") {
		t.Fatalf("doctor:\n%s", doc.Stdout)
	}
	sub := d.BackgroundCLI(t, "events", "--follow", "--after", "0")
	sub.WaitBlocked(t) // replayed, now following
	d.Stop(t)          // ends the stream
	evs, _ := followLines(t, sub.Result(t, harness.CallTimeout).Stdout)
	if len(evs) != 3 || evs[0].Seq != 1 || evs[1].Seq != first || evs[2].Seq <= first || evs[0].Source == evs[2].Source {
		t.Fatalf("events after 0 across a restart: %+v", evs)
	}
}
