package service

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// screenText is an emulator's rows, trailing spaces trimmed.
func screenText(e *vt.Emulator) []string {
	var out []string
	for y := 0; y < e.Height(); y++ {
		var b strings.Builder
		for x := 0; x < e.Width(); x++ {
			if c := e.CellAt(x, y); c != nil {
				b.WriteString(c.Content)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// An attached client's frames reproduce the pane's screen, follow its
// output and end with the process; an attach to an exited pane sends its
// screen and ends at once.
func TestAttachFollowsThePaneUntilItExits(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "echo first; read x; echo got-$x; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	client := vt.NewEmulator(80, 24)
	go func() {
		buf := make([]byte, 256)
		for {
			if _, err := client.Read(buf); err != nil {
				return
			}
		}
	}()
	var last AttachFrame
	frames := 0
	done := make(chan error, 1)
	go func() {
		done <- s.AttachPane(context.Background(), p.ID, "", func(f AttachFrame) error {
			mu.Lock()
			defer mu.Unlock()
			if f.Cols != 80 || f.Rows != 24 {
				t.Errorf("frame for %dx%d, want 80x24", f.Cols, f.Rows)
			}
			_, _ = client.Write(f.Data)
			last = f
			frames++
			return nil
		})
	}()
	shows := func(line string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, l := range screenText(client) {
				if l == line {
					return true
				}
			}
			return false
		}
	}
	waitFor(t, "the client shows the first line", shows("first"))
	if _, err := s.SendInput(context.Background(), p.ID, []byte("yes\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client shows the answer", shows("got-yes"))
	if err := <-done; err != nil {
		t.Fatalf("attach ended with %v", err)
	}
	mu.Lock()
	if last.End != AttachExited || last.Pane == nil || last.Pane.Status == nil || last.Pane.Status.Code == nil || *last.Pane.Status.Code != 3 {
		t.Errorf("last frame %+v, want the end with exit status 3", last)
	}
	mu.Unlock()

	var ended []AttachFrame
	if err := s.AttachPane(context.Background(), p.ID, "", func(f AttachFrame) error { ended = append(ended, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0].End != AttachExited || len(ended[0].Data) == 0 {
		t.Errorf("attach to an exited pane: %d frames %+v, want one with the screen and the end", len(ended), ended)
	}
	if err := s.AttachPane(context.Background(), "pane_nope", "", func(AttachFrame) error { return nil }); code(err) != "not_found.pane" {
		t.Errorf("attach to a missing pane: %v", err)
	}
}

// A client whose send blocks does not stop the pane's output; when it
// unblocks, one frame brings it to the current screen.
func TestAttachBlockedClientDoesNotStopThePane(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "read x; seq 1 20000; echo all-done; exec sleep 100"}})
	if err != nil {
		t.Fatal(err)
	}
	client := vt.NewEmulator(80, 24)
	go func() {
		buf := make([]byte, 256)
		for {
			if _, err := client.Read(buf); err != nil {
				return
			}
		}
	}()
	gate := make(chan struct{})
	first := make(chan struct{})
	var mu sync.Mutex
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.AttachPane(ctx, p.ID, "", func(f AttachFrame) error {
		mu.Lock()
		n++
		k := n
		_, _ = client.Write(f.Data)
		mu.Unlock()
		if k == 1 {
			close(first)
		} else if k == 2 {
			<-gate // the client stops reading
		}
		return nil
	})
	<-first
	if _, err := s.SendInput(context.Background(), p.ID, []byte("go\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pane's output goes on while the client is blocked", func() bool {
		c, err := s.CaptureRows(p.ID, CaptureRequest{})
		return err == nil && strings.Contains(strings.Join(c.Lines, "\n"), "all-done")
	})
	close(gate)
	waitFor(t, "the resumed client shows the current screen", func() bool {
		mu.Lock()
		defer mu.Unlock()
		c, err := s.CaptureRows(p.ID, CaptureRequest{})
		if err != nil {
			return false
		}
		got := screenText(client)
		for i, l := range c.Lines {
			if strings.TrimRight(l, " ") != got[i] {
				return false
			}
		}
		return true
	})
}

// Attaching is looking: the pane's attention is cleared.
func TestAttachClearsAttention(t *testing.T) {
	s := newTestService(t)
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Notifications().Add(NotifyRequest{Pane: p.ID, Title: "look", Severity: "warning"}); err != nil {
		t.Fatal(err)
	}
	if a, pane := s.HighestAttention(); a != "warning" || pane != p.ID {
		t.Fatalf("highest attention %q of %q, want warning of %s", a, pane, p.ID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent := make(chan struct{}, 1)
	go s.AttachPane(ctx, p.ID, "", func(AttachFrame) error {
		select {
		case sent <- struct{}{}:
		default:
		}
		return nil
	})
	<-sent
	if g, _ := s.GetPane(p.ID); g.Attention != "none" {
		t.Fatalf("attention after an attach: %q", g.Attention)
	}
	if a, _ := s.HighestAttention(); a != "none" {
		t.Fatalf("highest attention after an attach: %q", a)
	}
}
