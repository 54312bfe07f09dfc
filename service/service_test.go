package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

func newTestService(t *testing.T) *Service {
	t.Helper()
	s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// quiet drops the service's logs in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func code(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	if err != nil {
		return "non-service error: " + err.Error()
	}
	return ""
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// next returns the next event or fails after 10 s.
func next(t *testing.T, sub *Subscription) Event {
	t.Helper()
	select {
	case e, ok := <-sub.Events:
		if !ok {
			t.Fatal("subscription ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return Event{}
}

func expectTypes(t *testing.T, sub *Subscription, types ...string) []Event {
	t.Helper()
	var got []Event
	for _, want := range types {
		e := next(t, sub)
		got = append(got, e)
		if string(e.Type) != want {
			t.Fatalf("event %d: got %s, want %s (so far %v)", len(got), e.Type, want, got)
		}
	}
	return got
}

func TestSpawnCaptureKillRemove(t *testing.T) {
	s := newTestService(t)
	sub := s.Subscribe(Filter{}, false)
	w, err := s.CreateWorkspace("ci", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.Handle, Argv: []string{"sh", "-c", "echo hello-$SIGNALTTY_PANE; exec sleep 100"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.State != StateLive || p.Pid == 0 || p.Cols != 80 || p.Rows != 24 || p.Argv0 != "sh" {
		t.Fatalf("unexpected pane %+v", p)
	}
	waitFor(t, "hello on screen", func() bool {
		c, err := s.CaptureRows(p.ID, CaptureRequest{})
		return err == nil && strings.HasPrefix(c.Lines[0], "hello-"+p.ID)
	})
	expectTypes(t, sub, "workspace.created", "tab.created", "pane.created", "tab.layout_changed")

	if err := s.RemovePane(context.Background(), p.ID, false); code(err) != "conflict.pane_live" {
		t.Fatalf("removing a live pane: %v", err)
	}
	killed, err := s.KillPane(context.Background(), p.ID, "", -1)
	if err != nil || killed.State != StateExited || killed.Status == nil || killed.Status.Signal != "SIGHUP" {
		t.Fatalf("kill: %+v %v", killed, err)
	}
	expectTypes(t, sub, "pane.terminating", "pane.exited")
	c, err := s.CaptureRows(p.ID, CaptureRequest{})
	if err != nil || !strings.HasPrefix(c.Lines[0], "hello-") {
		t.Fatalf("capture after exit: %v %q", err, c.Lines)
	}
	if _, err := s.SendInput(context.Background(), p.ID, []byte("x")); code(err) != "conflict.pane_exited" {
		t.Fatalf("send to exited pane: %v", err)
	}
	if err := s.RemovePane(context.Background(), p.ID, false); err != nil {
		t.Fatal(err)
	}
	expectTypes(t, sub, "pane.removed", "tab.removed")
	if _, err := s.GetPane(p.ID); code(err) != "not_found.pane" {
		t.Fatalf("removed pane still found: %v", err)
	}
	if _, tabs, _, _ := s.GetWorkspace(w.ID); len(tabs) != 0 {
		t.Fatalf("tab left behind: %+v", tabs)
	}
}

func TestSplitDividesSize(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", "")
	cols, rows := 81, 24
	a, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}, Cols: &cols, Rows: &rows})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SpawnPane(SpawnRequest{Split: a.ID, Axis: AxisCols, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ = s.GetPane(a.ID)
	if a.Cols != 40 || b.Cols != 40 || a.Rows != 24 || b.Rows != 24 || a.Tab != b.Tab {
		t.Fatalf("split sizes: a %dx%d b %dx%d", a.Cols, a.Rows, b.Cols, b.Rows)
	}
	_, tabs, panes, _ := s.GetWorkspace(w.ID)
	if l := tabs[0].Layout; l == nil || l.Axis != AxisCols || l.First.Pane != a.ID || l.Second.Pane != b.ID || len(panes) != 2 {
		t.Fatalf("layout %+v", tabs[0].Layout)
	}
	if err := s.RemoveWorkspace(context.Background(), w.ID, false); code(err) != "conflict.pane_live" {
		t.Fatalf("non-recursive removal with live panes: %v", err)
	}
	if err := s.RemoveWorkspace(context.Background(), w.ID, true); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.Panes != 0 || st.Tabs != 0 || st.Workspaces != 0 {
		t.Fatalf("left behind: %+v", st)
	}
}

func TestSpawnErrorsLeaveNothing(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", "")
	zero := 0
	for _, c := range []struct {
		r    SpawnRequest
		code string
	}{
		{SpawnRequest{Workspace: w.ID}, "invalid_params.argv"},
		{SpawnRequest{Workspace: w.ID, Argv: []string{"a\x00b"}}, "invalid_params.argv"},
		{SpawnRequest{Workspace: w.ID, Argv: []string{"true"}, Cols: &zero}, "invalid_params.size"},
		{SpawnRequest{Workspace: w.ID, Split: "x", Axis: AxisCols, Argv: []string{"true"}}, "invalid_params.target"},
		{SpawnRequest{Workspace: "nope", Argv: []string{"true"}}, "not_found.workspace"},
		{SpawnRequest{Workspace: w.ID, Argv: []string{"/nonexistent/prog"}}, "unavailable.spawn"},
		{SpawnRequest{Workspace: w.ID, Argv: []string{"true"}, Cwd: "/nonexistent"}, "invalid_params.cwd"},
		{SpawnRequest{Workspace: w.ID, Argv: []string{"true"}, Env: map[string]string{"SIGNALTTY_PANE": "x"}}, "invalid_params.env"},
	} {
		if _, err := s.SpawnPane(c.r); code(err) != c.code {
			t.Errorf("%+v: got %v, want %s", c.r, err, c.code)
		}
	}
	if st := s.Status(); st.Panes != 0 || st.Tabs != 0 {
		t.Fatalf("failed spawns left %+v", st)
	}
}

func TestRunLifecycle(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("ci", "")
	sub := s.Subscribe(Filter{Types: []string{"run", "pane.exited", "pane.created"}}, false)
	sh := "echo build; exit 2"
	start, err := s.Runs().Start(context.Background(), RunRequest{Key: "b-1", Workspace: w.ID, Shell: &sh})
	if err != nil || start.Run != "r0" || start.Reused {
		t.Fatalf("start: %+v %v", start, err)
	}
	rec, err := s.Runs().Wait(context.Background(), "r0", -1, true)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome != OutcomeFailed || *rec.Status != 2 || *rec.ExitCode != 2 || rec.Output == nil ||
		len(rec.Output.Lines) != 1 || strings.TrimSpace(rec.Output.Lines[0]) != "build" || !rec.Output.Complete {
		t.Fatalf("record %+v output %+v", rec, rec.Output)
	}
	expectTypes(t, sub, "pane.created", "run.started", "pane.exited", "run.completed")

	again, err := s.Runs().Start(context.Background(), RunRequest{Key: "b-1", Workspace: w.ID, Shell: &sh})
	if err != nil || !again.Reused || again.Run != "r0" {
		t.Fatalf("same key and params: %+v %v", again, err)
	}
	other := "exit 0"
	if _, err := s.Runs().Start(context.Background(), RunRequest{Key: "b-1", Workspace: w.ID, Shell: &other}); code(err) != "conflict.run_key" {
		t.Fatalf("same key, other params: %v", err)
	}
	if _, err := s.Runs().Start(context.Background(), RunRequest{Key: "bad key", Workspace: w.ID, Shell: &other}); code(err) != "invalid_params.key" {
		t.Fatalf("bad key: %v", err)
	}
	if _, err := s.Runs().Start(context.Background(), RunRequest{Key: "k", Workspace: w.ID}); code(err) != "invalid_params.command" {
		t.Fatalf("no command: %v", err)
	}
	if _, err := s.Runs().Start(context.Background(), RunRequest{Key: "k", Workspace: w.ID, Shell: &other, Source: "signaltty/old"}); code(err) != "conflict.source" {
		t.Fatalf("old source: %v", err)
	}

	// Deadline: terminated, status 124; a wait timeout never touches the run.
	dl := int64(300)
	st, err := s.Runs().Start(context.Background(), RunRequest{Key: "hang", Workspace: w.ID, Argv: []string{"sleep", "100"}, DeadlineMs: &dl})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Runs().Wait(context.Background(), st.Run, 0, false); code(err) != "timeout.wait" {
		t.Fatalf("non-blocking wait: %v", err)
	}
	rec, err = s.Runs().Wait(context.Background(), st.Run, -1, false)
	if err != nil || rec.Outcome != OutcomeTerminated || rec.Cause != CauseDeadline || *rec.Status != 124 || rec.Signal != "SIGHUP" {
		t.Fatalf("deadline run: %+v %v", rec, err)
	}

	// Cancel: first cause wins, a second cancel returns the same record.
	st, _ = s.Runs().Start(context.Background(), RunRequest{Key: "c", Workspace: w.ID, Argv: []string{"sleep", "100"}})
	rec, err = s.Runs().Cancel(context.Background(), st.Run, "TERM", time.Second)
	if err != nil || rec.Cause != CauseCancel || rec.Signal != "SIGTERM" || *rec.Status != 125 {
		t.Fatalf("cancel: %+v %v", rec, err)
	}
	rec2, err := s.Runs().Cancel(context.Background(), st.Run, "", -1)
	if err != nil || rec2.CompletedAt != rec.CompletedAt || rec2.Cause != CauseCancel {
		t.Fatalf("second cancel changed the record: %+v %v", rec2, err)
	}
	if _, err := s.Runs().Get("r99", false); code(err) != "not_found.run" {
		t.Fatalf("unknown run: %v", err)
	}
}

func TestRunRetention(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("ci", "")
	for i := 0; i < 4; i++ {
		st, err := s.Runs().Start(context.Background(), RunRequest{Key: "k" + string(rune('0'+i)), Workspace: w.ID, Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Runs().Wait(context.Background(), st.Run, -1, false); err != nil {
			t.Fatal(err)
		}
	}
	sub := s.Subscribe(Filter{Types: []string{"run.expired"}}, false)
	two := 2
	if _, err := s.Runs().SetConfig(nil, &two, nil, nil); err != nil {
		t.Fatal(err)
	}
	a, b := next(t, sub), next(t, sub)
	if a.Resource != "r0" || b.Resource != "r1" {
		t.Fatalf("evicted %s, %s; want r0, r1 (oldest completed first)", a.Resource, b.Resource)
	}
	if _, err := s.Runs().Get("r0", false); code(err) != "not_found.run" {
		t.Fatalf("expired run: %v", err)
	}
	var se *Error
	_, err := s.Runs().Get("r0", false)
	if !errors.As(err, &se) || se.Data["reason"] != "expired" {
		t.Fatalf("expired reason: %v", err)
	}
	runs, next, err := s.Runs().List("", "", "", 1)
	if err != nil || len(runs) != 1 || runs[0].ID != "r2" || next != "r2" {
		t.Fatalf("list page: %+v %q %v", runs, next, err)
	}
	// The key of an expired run is free again.
	st, err := s.Runs().Start(context.Background(), RunRequest{Key: "k0", Workspace: w.ID, Argv: []string{"true"}})
	if err != nil || st.Reused || st.Run != "r4" {
		t.Fatalf("reuse of an expired key: %+v %v", st, err)
	}
}

// A capture naming an old epoch fails with the current epoch in its data.
func TestStaleEpochNamesCurrentEpoch(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("e", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "seq 100; printf '\\033[3J'; sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the history to be cleared", func() bool {
		c, err := s.CaptureRows(p.ID, CaptureRequest{})
		return err == nil && c.Epoch == 1
	})
	zero := int64(0)
	_, err = s.CaptureRows(p.ID, CaptureRequest{Epoch: &zero})
	var se *Error
	if !errors.As(err, &se) || se.Code != "conflict.epoch" || se.Data["epoch"] != int64(1) {
		t.Fatalf("capture of epoch 0: %v (data %v)", err, se)
	}
}
