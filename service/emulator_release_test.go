package service

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/signaltty/signaltty/term"
)

// paneTerm returns a pane's terminal.
func paneTerm(t *testing.T, s *Service, id string) *term.Terminal {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.lookupPane(id)
	if err != nil {
		t.Fatal(err)
	}
	return p.term
}

// A pane whose output stayed idle past the release delay gives its
// emulator back; its next output, a resize, a capture and an attach each
// rebuild it first, showing the same screen, and it is released again
// once idle.
func TestIdlePaneIsReleasedAndRebuiltOnOutputResizeCaptureAndAttach(t *testing.T) {
	s := newTestService(t)
	if err := s.Settings().SetEmulatorReleaseAfter(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWorkspace("w", t.TempDir())
	p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c",
		`printf '\033[1;32mready\033[m$ '; while read x; do printf 'got-%s\n$ ' "$x"; done`}})
	if err != nil {
		t.Fatal(err)
	}
	tm := paneTerm(t, s, p.ID)
	released := func() bool { return tm.Parked() }
	waitFor(t, "the idle pane's release", released)
	screen := func() []string {
		c, err := s.CaptureRows(p.ID, CaptureRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Lines
	}

	// Capture: rebuilds, same screen.
	if got := screen(); !strings.HasPrefix(got[0], "ready$ ") || tm.Parked() {
		t.Fatalf("capture of a released pane: %q parked=%v", got[0], tm.Parked())
	}
	waitFor(t, "release after the capture", released)

	// Output: rebuilds and continues the same screen.
	if _, err := s.SendInput(context.Background(), p.ID, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the output", func() bool {
		l := screen()
		return strings.HasPrefix(l[1], "got-one") && strings.HasPrefix(l[2], "$ ")
	})
	waitFor(t, "release after the output", released)

	// Resize: rebuilds at the new size.
	if _, err := s.ResizePane(p.ID, 60, 10); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the resize", func() bool { c, r := tm.Size(); return c == 60 && r == 10 })
	if l := screen(); len(l) != 10 || !strings.HasPrefix(l[0], "ready$ one") {
		t.Fatalf("after the resize: %q", l)
	}
	waitFor(t, "release after the resize", released)
	before := screen()
	waitFor(t, "release after the capture", released)

	// Attach: the first frame draws the same screen, colours included.
	client := vt.NewEmulator(60, 10)
	go func() {
		buf := make([]byte, 256)
		for {
			if _, err := client.Read(buf); err != nil {
				return
			}
		}
	}()
	var mu sync.Mutex
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.AttachPane(ctx, p.ID, "", func(f AttachFrame) error {
		mu.Lock()
		defer mu.Unlock()
		_, _ = client.Write(f.Data)
		return nil
	})
	waitFor(t, "the attached screen", func() bool {
		mu.Lock()
		defer mu.Unlock()
		got := screenText(client)
		for i := range before {
			if strings.TrimRight(before[i], " ") != got[i] {
				return false
			}
		}
		c := client.CellAt(0, 0)
		return c != nil && c.Content == "r" && !c.Style.IsZero()
	})
	if st := s.Settings().EmulatorReleaseStats(); st.Released < 4 || st.Rebuilt < 4 {
		t.Fatalf("stats %+v", st)
	}
}
