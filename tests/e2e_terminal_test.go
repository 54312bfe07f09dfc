package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// cellWidth is the display width of the characters these tests print:
// 2 for CJK ideographs, kana, Hangul, full-width forms and emoji, else 1.
func cellWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += cellWidth(r)
	}
	return n
}

// checkGeometry requires every line to be exactly cols cells wide, without
// control characters or replacement characters.
func checkGeometry(t *testing.T, c harness.Capture, cols int) {
	t.Helper()
	if c.Cols != cols {
		t.Errorf("capture cols %d, want %d", c.Cols, cols)
	}
	for i, l := range c.Lines {
		if w := displayWidth(l); w != cols {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, w, cols, l)
		}
		for _, r := range l {
			if r < 0x20 || r == 0x7f || r == '\uFFFD' {
				t.Errorf("line %d contains %U: %q", i, r, l)
				break
			}
		}
	}
}

// The terminal emulation, observed through the daemon.
func TestTerminal(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)

	t.Run("UTF-8 split across reads", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "utf8")
		p := d.Spawn(t, ws(w), "bash", "-c",
			`printf '\xe6'; sleep 0.1; printf '\x97\xa5\n'; `+
				`printf '\xf0'; sleep 0.05; printf '\x9f'; sleep 0.05; printf '\x98'; sleep 0.05; printf '\x80\n'; `+
				`echo done; exec sleep 100`)
		c := d.WaitLine(t, p.ID, "done")
		got := c.Trimmed()
		if len(got) < 3 || got[0] != "日" || got[1] != "😀" {
			t.Errorf("multibyte characters written byte by byte: got lines %q, want 日 and 😀:\n%s", got, c.Dump())
		}
		checkGeometry(t, c, 80)
	})

	t.Run("CJK and emoji rows", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "wide")
		p := d.Spawn(t, append(ws(w), "--cols", "20", "--rows", "10"), "sh", "-c",
			`printf '%s\n' '漢字かなカナ' '😀👍🎉' 'ab日本c' '一二三四五六七八九十一' 'done'; exec sleep 100`)
		c := d.WaitLine(t, p.ID, "done")
		want := []string{"漢字かなカナ", "😀👍🎉", "ab日本c", "一二三四五六七八九十", "一", "done"}
		if got := c.Trimmed(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("wide characters on a 20-column pane:\n got %q\nwant %q\n%s", got, want, c.Dump())
		}
		checkGeometry(t, c, 20)
		if n := len([]rune(c.Lines[0])); n != 14 {
			t.Errorf("line %q has %d characters, want 14 (6 wide ones and 8 spaces)", c.Lines[0], n)
		}

		// A wide character that does not fit in the last column wraps whole.
		q := d.Spawn(t, append(ws(w), "--cols", "11", "--rows", "6"), "sh", "-c",
			`printf '%s\n' 'aあいうえお' 'あいうえおか' 'done'; exec sleep 100`)
		c = d.WaitLine(t, q.ID, "done")
		want = []string{"aあいうえお", "あいうえお", "か", "done"}
		if got := c.Trimmed(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("wide characters on an 11-column pane:\n got %q\nwant %q\n%s", got, want, c.Dump())
		}
		checkGeometry(t, c, 11)
	})

	t.Run("clear screen", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "clear")
		p := d.Spawn(t, ws(w), "sh", "-c", `printf 'before-clear\n'; printf '\033[2J\033[Hafter-clear\n'; exec sleep 100`)
		c := d.WaitLine(t, p.ID, "after-clear")
		if c.Contains("before-clear") || strings.TrimRight(c.Lines[0], " ") != "after-clear" {
			t.Errorf("after ESC[2J ESC[H the screen must hold only the new text on row 0:\n%s", c.Dump())
		}
		checkGeometry(t, c, 80)
	})

	t.Run("alternate screen", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "alt")
		file := filepath.Join(harness.TempDir(t), "page.txt")
		if err := os.WriteFile(file, []byte("alt-content-line\nsecond line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := bash(t, d, ws(w))
		run(t, d, p.ID, "echo primary-marker", "primary-marker")
		d.Send(t, p.ID, "less "+file+`\n`)
		c := d.WaitCapture(t, p.ID, "less shows the file on the alternate screen", func(c harness.Capture) bool {
			return c.Screen == "alternate" && c.HasLine("alt-content-line")
		})
		if c.Contains("primary-marker") {
			t.Errorf("the alternate screen shows the primary screen's text:\n%s", c.Dump())
		}
		checkGeometry(t, c, 80)
		if g := d.GetPane(t, p.ID); g.Screen != "alternate" {
			t.Errorf("pane screen %q while less runs, want alternate", g.Screen)
		}
		d.Send(t, p.ID, "q")
		c = d.WaitCapture(t, p.ID, "the primary screen is back after quitting less", func(c harness.Capture) bool {
			return c.Screen == "primary" && c.HasLine("primary-marker")
		})
		if c.Contains("alt-content-line") {
			t.Errorf("the alternate screen's text stayed on the primary screen:\n%s", c.Dump())
		}
		if g := d.GetPane(t, p.ID); g.Screen != "primary" {
			t.Errorf("pane screen %q after less quit, want primary", g.Screen)
		}
		// The alternate screen's rows never entered the history.
		h := d.Capture(t, p.ID, "--start", strconv.FormatInt(c.Oldest, 10), "--end", strconv.FormatInt(c.End, 10))
		if h.Contains("alt-content-line") {
			t.Errorf("the alternate screen's rows are in the history:\n%s", h.Dump())
		}
	})

	t.Run("titles with semicolons", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "title")
		s := d.Subscribe(t, []string{"pane.title"}, nil)
		p := d.Spawn(t, ws(w), "sh", "-c", `printf '\033]2;a;b\007'; echo one; printf '\033]0;c;d;e\033\\'; echo two; exec sleep 100`)
		e := s.WaitFor(t, harness.PollTimeout, "pane.title a;b", func(e harness.Event) bool { return e.Resource == p.ID })
		if e.Type != "pane.title" || e.Data["title"] != "a;b" {
			t.Errorf("first title event: %s, want pane.title with data.title \"a;b\"", e.Raw)
		}
		e = s.WaitFor(t, harness.PollTimeout, "pane.title c;d;e", func(e harness.Event) bool { return e.Resource == p.ID })
		if e.Data["title"] != "c;d;e" {
			t.Errorf("second title event: %s, want data.title \"c;d;e\"", e.Raw)
		}
		d.WaitLine(t, p.ID, "two")
		if g := d.GetPane(t, p.ID); g.Title != "c;d;e" {
			t.Errorf("pane title %q, want \"c;d;e\"", g.Title)
		}
	})

	t.Run("cursor position report", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "dsr")
		p := d.Spawn(t, ws(w), "bash", "-c",
			`stty raw -echo; printf '\033[6n'; IFS= read -r -d R x; stty sane; echo "got${x#*[}"; exec sleep 100`)
		d.WaitLine(t, p.ID, "got1;1")
	})

	t.Run("1 MB of output then exit", func(t *testing.T) {
		t.Parallel()
		w := d.CreateWorkspace(t, "bulk")
		s := d.Subscribe(t, []string{"pane.exited"}, nil)
		const last = 160000 // seq 1 160000 prints about 1 MB
		p := d.Spawn(t, ws(w), "sh", "-c", "seq 1 "+strconv.Itoa(last)+"; echo LAST-LINE-MARKER")
		e := s.WaitFor(t, 120*time.Second, "pane.exited", func(e harness.Event) bool { return e.Resource == p.ID })
		if status, _ := e.Data["status"].(map[string]any); status == nil || status["code"] != float64(0) {
			t.Errorf("pane.exited event: %s, want status code 0", e.Raw)
		}
		// Once pane.exited is out, everything the program wrote is on the screen.
		c := d.Capture(t, p.ID)
		got := c.Trimmed()
		if len(got) < 2 || got[len(got)-1] != "LAST-LINE-MARKER" || got[len(got)-2] != strconv.Itoa(last) {
			t.Errorf("capture right after pane.exited does not end with %d and LAST-LINE-MARKER:\n%s", last, c.Dump())
		}
		checkGeometry(t, c, 80)
		// The history holds an unbroken run of numbers up to the last one.
		h := d.Capture(t, p.ID, "--start", strconv.FormatInt(c.Oldest, 10), "--end", strconv.FormatInt(c.End, 10))
		if int64(len(h.Lines)) != c.End-c.Oldest || h.First != c.Oldest {
			t.Errorf("history capture [%d,%d): %d lines from %d", c.Oldest, c.End, len(h.Lines), h.First)
		}
		prev, count := -1, 0
		for i, l := range h.Lines {
			n, err := strconv.Atoi(strings.TrimRight(l, " "))
			if err != nil {
				continue
			}
			if prev >= 0 && n != prev+1 {
				t.Errorf("history row %d: %d follows %d", h.First+int64(i), n, prev)
				break
			}
			prev = n
			count++
		}
		if prev != last || count < 1000 {
			t.Errorf("history: %d consecutive numbers ending at %d, want at least 1000 ending at %d", count, prev, last)
		}
	})
}
