package service

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func limitedService(t *testing.T, l Limits) *Service {
	t.Helper()
	s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet, Limits: l})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

func errData(t *testing.T, err error) map[string]any {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("not a service error: %v", err)
	}
	return se.Data
}

func TestConcurrentSpawnsStopAtThePaneLimit(t *testing.T) {
	const max = 3
	s := limitedService(t, Limits{MaxPanes: max})
	w, _ := s.CreateWorkspace("w", "")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, refused int
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}})
			mu.Lock()
			defer mu.Unlock()
			switch code(err) {
			case "":
				ok++
			case "unavailable.panes":
				refused++
				if d := errData(t, err); d["max"] != max {
					t.Errorf("data %v, want max %d", d, max)
				}
			default:
				t.Errorf("spawn: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != max || refused != 8-max {
		t.Fatalf("%d spawned, %d refused; want %d and %d", ok, refused, max, 8-max)
	}
	if st := s.Status(); st.Panes != max || st.LivePanes != max || st.Tabs != max {
		t.Fatalf("after refusals: %+v", st)
	}
	// A pane that exited no longer counts; relaunching it counts again.
	_, _, panes, _ := s.GetWorkspace(w.ID)
	if _, err := s.KillPane(context.Background(), panes[0].ID, "", -1); err != nil {
		t.Fatal(err)
	}
	extra, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatalf("after one exited: %v", err)
	}
	if _, err := s.RelaunchPane(panes[0].ID); code(err) != "unavailable.panes" {
		t.Fatalf("relaunch at the limit: %v", err)
	}
	if p, _ := s.GetPane(panes[0].ID); p.State != StateExited {
		t.Fatalf("refused relaunch changed the pane: %+v", p)
	}
	if _, err := s.Runs().Start(context.Background(), RunRequest{Key: "k1", Workspace: w.ID, Argv: []string{"true"}}); code(err) != "unavailable.panes" {
		t.Fatalf("run at the limit: %v", err)
	}
	if _, _, err := s.CreateWorkspaceWith(context.Background(), NewWorkspace{Name: "x", Argv: []string{"sleep", "100"}}); code(err) != "unavailable.panes" {
		t.Fatalf("a workspace with a pane at the limit: %v", err)
	}
	if st := s.Status(); st.Workspaces != 1 || st.Panes != max+1 {
		t.Fatalf("refused starts left %+v", st)
	}
	_ = extra
}

func TestSendInputPastTheRateIsRefusedWithoutWriting(t *testing.T) {
	s := limitedService(t, Limits{InputMaxBytes: 1000, InputBytesPerSecond: 1000})
	w, _ := s.CreateWorkspace("w", "")
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendInput(context.Background(), p.ID, make([]byte, 1001)); code(err) != "invalid_params.size" || errData(t, err)["max"] != 1000 {
		t.Fatalf("over the size: %v", err)
	}
	line := []byte(strings.Repeat("a", 599) + "\r")
	if n, err := s.SendInput(context.Background(), p.ID, line); err != nil || n != 600 {
		t.Fatalf("first send: %d %v", n, err)
	}
	n, err := s.SendInput(context.Background(), p.ID, []byte(strings.Repeat("b", 599)+"\r"))
	if code(err) != "unavailable.input_rate" || n != 0 {
		t.Fatalf("second send: %d %v, want unavailable.input_rate", n, err)
	}
	d := errData(t, err)
	if d["bytes_per_second"] != 1000 || d["retry_after_ms"].(int64) <= 0 {
		t.Errorf("data %v", d)
	}
	waitFor(t, "the first line echoed", func() bool {
		c, _ := s.CaptureRows(p.ID, CaptureRequest{})
		return strings.Contains(strings.Join(c.Lines, ""), "aaaa")
	})
	c, _ := s.CaptureRows(p.ID, CaptureRequest{})
	if strings.Contains(strings.Join(c.Lines, ""), "b") {
		t.Errorf("the refused input was written: %q", c.Lines)
	}
}

func TestSubscriberPastItsQueueEndsLagged(t *testing.T) {
	s := limitedService(t, Limits{EventQueue: 5})
	sub := s.Subscribe(Filter{}, false)
	for i := 0; i < 10; i++ {
		s.CreateWorkspace("w"+strconv.Itoa(i), "")
	}
	waitFor(t, "the subscriber ended", func() bool { return sub.Ended() != nil })
	if e := sub.Ended(); e.Code != "unavailable.lagged" || e.Data["queue"] != 5 {
		t.Fatalf("ended with %v %v", e, e.Data)
	}
	n := 0
	for range sub.Events {
		n++
	}
	if n != 5 {
		t.Errorf("%d events delivered before the end, want the 5 queued", n)
	}
}

func TestCapturePastTheReplyLimitNamesWhatFits(t *testing.T) {
	s := limitedService(t, Limits{CaptureMaxBytes: 83 * 10}) // 10 lines of 80 ASCII characters, quoted, with commas
	w, _ := s.CreateWorkspace("w", "")
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "seq 100; exec sleep 100"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "output", func() bool {
		c, _ := s.CaptureRows(p.ID, CaptureRequest{End: ptr(int64(10))})
		return len(c.Lines) == 10 && strings.TrimSpace(c.Lines[9]) == "10"
	})
	_, err = s.CaptureRows(p.ID, CaptureRequest{}) // the screen: 24 rows
	if code(err) != "invalid_params.range" {
		t.Fatalf("screen capture past 830 bytes: %v", err)
	}
	d := errData(t, err)
	if d["reason"] != "too_large" || d["max_bytes"] != 830 {
		t.Fatalf("data %v", d)
	}
	fit, start := d["fit_end"].(int64), d["end"].(int64)-24
	c, err := s.CaptureRows(p.ID, CaptureRequest{Start: &start, End: &fit})
	if err != nil || len(c.Lines) != 10 {
		t.Fatalf("capture up to fit_end %d: %d lines %v", fit, len(c.Lines), err)
	}
}

func TestHistoryOfAllPanesStaysWithinTheTotalBudget(t *testing.T) {
	const total = 64 << 10
	s := limitedService(t, Limits{HistoryTotalBytes: total})
	w, _ := s.CreateWorkspace("w", "")
	// Each row keeps 78 bytes; 2000 rows are about 152 KiB, far past the total.
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c",
		`i=0; while [ $i -lt 2000 ]; do printf '%078d\n' $i; i=$((i+1)); done; echo done; exec sleep 100`}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "done", func() bool {
		c, _ := s.CaptureRows(p.ID, CaptureRequest{})
		return strings.Contains(strings.Join(c.Lines, "\n"), "done")
	})
	waitFor(t, "the total within the budget", func() bool { return s.limits.history.Used() <= total })
	c, _ := s.CaptureRows(p.ID, CaptureRequest{})
	if c.Oldest == 0 {
		t.Fatalf("oldest did not advance")
	}
	if kept := (c.First - c.Oldest) * 78; kept > total {
		t.Errorf("%d history rows kept (%d bytes), more than %d", c.First-c.Oldest, kept, total)
	}
	if _, err := s.CaptureRows(p.ID, CaptureRequest{Start: ptr(c.Oldest - 1)}); code(err) != "invalid_params.range" {
		t.Errorf("before oldest: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
