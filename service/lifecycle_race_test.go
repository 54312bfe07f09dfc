package service

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/events"
	"golang.org/x/sys/unix"
)

// The lifecycle race matrix: two verbs that change one pane, raced many
// times. Each round must end in a state that some serial order of the two
// explains, and no process may outlive its removed pane or Shutdown.
// $SIGNALTTY_RACE_ROUNDS sets the rounds (default 500; 50 with -short).

func raceRounds(t *testing.T) int {
	if v, err := strconv.Atoi(os.Getenv("SIGNALTTY_RACE_ROUNDS")); err == nil && v > 0 {
		return v
	}
	if testing.Short() {
		return 50
	}
	return 500
}

// started records every leader pid a service started.
type started struct {
	mu   sync.Mutex
	pids []int
}

// recordStarts makes s note the pid of every process it starts.
func recordStarts(s *Service) *started {
	rec := &started{}
	s.startProcess = func(cfg pty.Config, out pty.Output) (*pty.Process, error) {
		p, err := pty.Start(cfg, out)
		if err == nil {
			rec.mu.Lock()
			rec.pids = append(rec.pids, p.Pid())
			rec.mu.Unlock()
		}
		return p, err
	}
	return rec
}

// alive reports whether pid is a process (not yet reaped).
func alive(pid int) bool { return unix.Kill(pid, 0) == nil }

// checkNoOrphans fails if a process s started is alive without being the
// leader of a pane with a process.
func checkNoOrphans(t *testing.T, s *Service, rec *started) {
	t.Helper()
	s.mu.Lock()
	owned := map[int]bool{}
	for _, p := range s.panes {
		if p.state.hasProcess() {
			owned[p.inst.proc.Pid()] = true
		}
	}
	s.mu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, pid := range rec.pids {
		if alive(pid) && !owned[pid] {
			t.Fatalf("process %d is alive but no pane has it", pid)
		}
	}
	rec.pids = rec.pids[:0]
}

// race runs a and b at (nearly) the same time: one of them, chosen at
// random, after a random delay of up to jitter.
func race(jitter time.Duration, a, b func()) {
	var wg sync.WaitGroup
	da, db := time.Duration(rand.Int64N(int64(jitter)+1)), time.Duration(0)
	if rand.IntN(2) == 0 {
		da, db = db, da
	}
	wg.Add(2)
	go func() { defer wg.Done(); time.Sleep(da); a() }()
	go func() { defer wg.Done(); time.Sleep(db); b() }()
	wg.Wait()
}

// exitedPane spawns `sleep 60` and kills it: a pane to relaunch. On a
// loaded machine the reap can come later than the kill-wait: KillPane then
// fails timeout.terminate and the exit is recorded when the reap comes
// (docs/termination.md, "Kill-wait and timeout.terminate"), which this
// waits for.
func exitedPane(t *testing.T, s *Service, ws string) string {
	t.Helper()
	p, err := s.SpawnPane(SpawnRequest{Workspace: ws, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.KillPane(context.Background(), p.ID, "KILL", 0); code(err) == "timeout.terminate" {
		t.Logf("kill of %s: %v; waiting for the reap", p.ID, err)
		waitFor(t, "the exit after a late reap", func() bool { g, _ := s.GetPane(p.ID); return g.State == StateExited })
	} else if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func oneOf(err error, codes ...string) bool {
	c := code(err)
	for _, want := range codes {
		if c == want {
			return true
		}
	}
	return false
}

func TestRaceRelaunchRemove(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	wins := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		id := exitedPane(t, s, w.ID)
		var rp Pane
		var rerr, merr error
		race(2*time.Millisecond,
			func() { rp, rerr = s.RelaunchPane(id) },
			func() { merr = s.RemovePane(ctx, id, false) })
		got, gerr := s.GetPane(id)
		switch {
		case rerr == nil && merr == nil:
			t.Fatalf("round %d: relaunch and remove (without kill) both succeeded", i)
		case rerr == nil: // the relaunch won: the removal saw a live pane
			if code(merr) != "conflict.pane_live" || gerr != nil || got.State != StateLive || got.Pid != rp.Pid || !alive(rp.Pid) {
				t.Fatalf("round %d: relaunch won, remove %v, pane %+v %v", i, merr, got, gerr)
			}
			wins["relaunch"]++
			if err := s.RemovePane(ctx, id, true); err != nil {
				t.Fatal(err)
			}
		case merr == nil: // the removal won
			if !oneOf(rerr, "not_found.pane", "conflict.removing") || code(gerr) != "not_found.pane" {
				t.Fatalf("round %d: remove won, relaunch %v, get %v", i, rerr, gerr)
			}
			wins["remove"]++
		default:
			t.Fatalf("round %d: both failed: relaunch %v, remove %v", i, rerr, merr)
		}
		checkNoOrphans(t, s, rec)
	}
	t.Logf("wins: %v", wins)
}

func TestRaceRelaunchRemoveKill(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	outcomes := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		id := exitedPane(t, s, w.ID)
		var rerr, merr error
		race(2*time.Millisecond,
			func() { _, rerr = s.RelaunchPane(id) },
			func() { merr = s.RemovePane(ctx, id, true) })
		if merr != nil {
			t.Fatalf("round %d: remove --kill failed: %v", i, merr)
		}
		if rerr != nil && !oneOf(rerr, "not_found.pane", "conflict.removing") {
			t.Fatalf("round %d: relaunch failed with %v", i, rerr)
		}
		if _, err := s.GetPane(id); code(err) != "not_found.pane" {
			t.Fatalf("round %d: pane still there after remove --kill: %v", i, err)
		}
		outcomes[code(rerr)]++
		checkNoOrphans(t, s, rec)
	}
	t.Logf("relaunch results: %v", outcomes)
}

func TestRaceRelaunchKill(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	final := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		id := exitedPane(t, s, w.ID)
		var rp Pane
		var rerr, kerr error
		race(2*time.Millisecond,
			func() { rp, rerr = s.RelaunchPane(id) },
			func() { _, kerr = s.KillPane(ctx, id, "", 0) })
		if rerr != nil || kerr != nil {
			t.Fatalf("round %d: relaunch %v, kill %v", i, rerr, kerr)
		}
		got, err := s.GetPane(id)
		if err != nil {
			t.Fatal(err)
		}
		switch got.State { // kill first leaves the relaunched process; relaunch first, none
		case StateLive:
			if got.Pid != rp.Pid || !alive(rp.Pid) {
				t.Fatalf("round %d: live pane %+v, relaunched pid %d alive %v", i, got, rp.Pid, alive(rp.Pid))
			}
			if _, err := s.KillPane(ctx, id, "", 0); err != nil {
				t.Fatal(err)
			}
		case StateExited:
			if alive(rp.Pid) {
				t.Fatalf("round %d: pane exited but its process %d is alive", i, rp.Pid)
			}
		}
		final[got.State]++
		if err := s.RemovePane(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		checkNoOrphans(t, s, rec)
	}
	t.Logf("final states: %v", final)
}

func TestRaceKillExit(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	outcomes := map[string]int{}
	sub := s.Subscribe(Filter{Types: []string{"pane.terminating", "pane.exited"}}, false)
	defer sub.Close()
	for i := 0; i < raceRounds(t); i++ {
		st, err := s.Runs().Start(ctx, RunRequest{Key: "k" + strconv.Itoa(i), Workspace: w.ID, Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		var kp Pane
		var kerr error
		race(3*time.Millisecond, func() {}, func() { kp, kerr = s.KillPane(ctx, st.Pane, "", 0) })
		if kerr != nil || kp.State != StateExited {
			t.Fatalf("round %d: kill %+v %v", i, kp, kerr)
		}
		r, err := s.Runs().Wait(ctx, st.Run, -1, false)
		if err != nil {
			t.Fatal(err)
		}
		first := next(t, sub)
		if first.Resource != st.Pane {
			t.Fatalf("round %d: event %s of %s, want one of %s", i, first.Type, first.Resource, st.Pane)
		}
		if first.Type == events.TypePaneTerminating {
			if e := next(t, sub); e.Type != events.TypePaneExited || e.Resource != st.Pane {
				t.Fatalf("round %d: after pane.terminating: %s of %s", i, e.Type, e.Resource)
			}
		}
		switch {
		case first.Type == events.TypePaneTerminating:
			if r.Outcome != OutcomeTerminated || r.Cause != CausePaneKill || *r.Status != 125 {
				t.Fatalf("round %d: pane.terminating first but run %+v", i, r)
			}
		case first.Type == events.TypePaneExited:
			if r.Outcome != OutcomeSucceeded || r.Cause != "" || *r.Status != 0 {
				t.Fatalf("round %d: exited without terminating but run %+v", i, r)
			}
		default:
			t.Fatalf("round %d: first event %s", i, first.Type)
		}
		outcomes[r.Outcome]++
		if err := s.RemovePane(ctx, st.Pane, false); err != nil {
			t.Fatal(err)
		}
		checkNoOrphans(t, s, rec)
	}
	t.Logf("outcomes: %v", outcomes)
}

func TestRaceRemoveExit(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	wins := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		var merr error
		race(3*time.Millisecond, func() {}, func() { merr = s.RemovePane(ctx, p.ID, false) })
		switch {
		case merr == nil:
			if _, err := s.GetPane(p.ID); code(err) != "not_found.pane" || alive(p.Pid) {
				t.Fatalf("round %d: removed, but get %v, pid alive %v", i, err, alive(p.Pid))
			}
			wins["removed"]++
		case code(merr) == "conflict.pane_live":
			waitFor(t, "the exit", func() bool { g, _ := s.GetPane(p.ID); return g.State == StateExited })
			if err := s.RemovePane(ctx, p.ID, false); err != nil {
				t.Fatal(err)
			}
			wins["live"]++
		default:
			t.Fatalf("round %d: remove: %v", i, merr)
		}
		checkNoOrphans(t, s, rec)
	}
	t.Logf("remove results: %v", wins)
}

func TestRaceSpawnWorkspaceRemoval(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	ctx := context.Background()
	outcomes := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		w, _ := s.CreateWorkspace("race", t.TempDir())
		req := SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}}
		if i%2 == 1 { // a split of a pane of the workspace
			base, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
			if err != nil {
				t.Fatal(err)
			}
			req = SpawnRequest{Split: base.ID, Axis: AxisCols, Argv: []string{"sleep", "60"}}
		}
		var sp Pane
		var serr, rerr error
		race(2*time.Millisecond,
			func() { sp, serr = s.SpawnPane(req) },
			func() { rerr = s.RemoveWorkspace(ctx, w.ID, true) })
		if rerr != nil {
			t.Fatalf("round %d: remove: %v", i, rerr)
		}
		if serr != nil && !oneOf(serr, "not_found.workspace", "not_found.pane", "conflict.removing", "conflict.pane_terminating", "conflict.pane_exited") {
			t.Fatalf("round %d: spawn: %v", i, serr)
		}
		if serr == nil && alive(sp.Pid) {
			t.Fatalf("round %d: spawned process %d outlived its workspace", i, sp.Pid)
		}
		s.mu.Lock()
		for _, p := range s.panes {
			if p.workspace == w.ID {
				t.Fatalf("round %d: pane %s (%s) of the removed workspace is still in the model", i, p.id, p.state)
			}
		}
		s.mu.Unlock()
		outcomes[code(serr)]++
		checkNoOrphans(t, s, rec)
	}
	t.Logf("spawn results: %v", outcomes)
}

func TestRaceShutdownDuringSpawn(t *testing.T) {
	outcomes := map[string]int{}
	for i := 0; i < raceRounds(t); i++ {
		s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
		rec := recordStarts(s)
		w, _ := s.CreateWorkspace("race", t.TempDir())
		var serr error
		race(2*time.Millisecond,
			func() { _, serr = s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}}) },
			func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				s.Shutdown(ctx)
			})
		if serr != nil && code(serr) != "unavailable.shutdown" {
			t.Fatalf("round %d: spawn: %v", i, serr)
		}
		rec.mu.Lock()
		for _, pid := range rec.pids {
			if alive(pid) {
				t.Fatalf("round %d: process %d outlived Shutdown", i, pid)
			}
		}
		rec.mu.Unlock()
		outcomes[code(serr)]++
	}
	t.Logf("spawn results: %v", outcomes)
}

func TestRaceConcurrentRelaunches(t *testing.T) {
	s := newTestService(t)
	rec := recordStarts(s)
	w, _ := s.CreateWorkspace("race", t.TempDir())
	ctx := context.Background()
	for i := 0; i < raceRounds(t)/5; i++ {
		id := exitedPane(t, s, w.ID)
		var e1, e2 error
		race(time.Millisecond, func() { _, e1 = s.RelaunchPane(id) }, func() { _, e2 = s.RelaunchPane(id) })
		if (e1 == nil) == (e2 == nil) {
			t.Fatalf("round %d: two relaunches: %v, %v (want exactly one to win)", i, e1, e2)
		}
		if lost := errors.Join(e1, e2); !oneOf(lost, "conflict.relaunching", "conflict.pane_live") {
			t.Fatalf("round %d: the losing relaunch: %v", i, lost)
		}
		if err := s.RemovePane(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		checkNoOrphans(t, s, rec)
	}
}

// A start that stalls between its reservation and exec (a slow fork/exec)
// holds no lock: other panes are read, captured and keep emulating output.
func TestSlowSpawnBlocksNothing(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("slow", t.TempDir())
	other, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	stall, stalled := make(chan struct{}), make(chan struct{})
	s.startProcess = func(cfg pty.Config, out pty.Output) (*pty.Process, error) {
		if cfg.Argv[0] == "slow-marker" {
			close(stalled)
			<-stall
			cfg.Argv = []string{"sleep", "60"}
		}
		return pty.Start(cfg, out)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"slow-marker"}})
		done <- err
	}()
	<-stalled
	sub := s.Subscribe(Filter{Resources: []string{other.ID}, Types: []string{"pane.title"}}, false)
	if _, err := s.GetPane(other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListPanes(w.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendInput(context.Background(), other.ID, []byte("\x1b]2;still here\x07typed\n")); err != nil {
		t.Fatal(err)
	}
	if e := next(t, sub); e.Type != events.TypePaneTitle { // the other pane's output is observed and published
		t.Fatalf("event %s", e.Type)
	}
	waitFor(t, "the other pane's output", func() bool {
		c, err := s.CaptureRows(other.ID, CaptureRequest{})
		return err == nil && len(c.Lines) > 0 && c.Lines[1][:5] == "typed"
	})
	select {
	case err := <-done:
		t.Fatalf("the stalled spawn returned early: %v", err)
	default:
	}
	close(stall)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
