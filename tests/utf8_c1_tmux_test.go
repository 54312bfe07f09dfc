package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/signaltty/signaltty/tests/harness"
)

// c1CodePoints returns every code point whose UTF-8 encoding holds a byte
// 0x80–0x9F, in batches of at most maxBytes bytes.
func c1CodePoints(maxBytes int) []string {
	var out []string
	var b strings.Builder
	var enc [utf8.UTFMax]byte
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		n := utf8.EncodeRune(enc[:], r)
		held := false
		for _, c := range enc[:n] {
			held = held || c >= 0x80 && c <= 0x9f
		}
		if !held {
			continue
		}
		if b.Len()+n > maxBytes {
			out = append(out, b.String())
			b.Reset()
		}
		b.Write(enc[:n])
	}
	return append(out, b.String())
}

// drawTimeout bounds the wait for tmux, and for a pane, to draw the whole
// of one of these inputs (over a million code points, or thousands of rows
// of strings): a loaded machine takes longer than the usual poll for it.
const drawTimeout = 2 * time.Minute

// plainTmux is a private tmux server of one cols×rows window (no status
// line, a history of 200,000 rows) running argv; killed at cleanup.
type plainTmux struct{ socket string }

func startPlainTmux(t *testing.T, cols, rows int, shell string) *plainTmux {
	t.Helper()
	harness.NeedTmux(t)
	dir := harness.TempDir(t)
	m := &plainTmux{socket: filepath.Join(dir, "tmux.sock")}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\nset -g history-limit 200000\nset -g remain-on-exit on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m.run(t, "-f", conf, "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", m.socket, "kill-server").Run() })
	return m
}

func (m *plainTmux) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", m.socket}, args...)...)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// rows returns every row, history then screen, without trailing spaces,
// and without the empty rows at the end.
func (m *plainTmux) rows(t *testing.T) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(m.run(t, "capture-pane", "-p", "-S", "-", "-E", "-", "-t", "0"), "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return lines
}

// waitRow polls, for up to drawTimeout, until the last row equals last.
func (m *plainTmux) waitRow(t *testing.T, last string) []string {
	t.Helper()
	var rows []string
	harness.Eventually(t, drawTimeout, "tmux shows "+last, func() (bool, string) {
		rows = m.rows(t)
		if len(rows) == 0 {
			return false, "no rows"
		}
		return rows[len(rows)-1] == last, fmt.Sprintf("%d rows, last %.200q", len(rows), rows[len(rows)-1])
	})
	return rows
}

// paneRows is every row of a signaltty pane, history then screen, without
// trailing spaces and the empty rows at the end (captured 2,000 rows at a
// time, under the capture size limit).
func paneRows(t *testing.T, d *harness.Daemon, pane string) []string {
	t.Helper()
	c := d.Capture(t, pane)
	var out []string
	for start := c.Oldest; start < c.End; start += 2000 {
		h := d.Capture(t, pane, "--start", strconv.FormatInt(start, 10), "--end", strconv.FormatInt(min(start+2000, c.End), 10))
		for _, l := range h.Lines {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// withoutC1CodePoints drops U+0080–U+009F, which signaltty removes from
// titles with the other control characters (docs/events.md).
func withoutC1CodePoints(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, s)
}

// TestCharactersHoldingC1BytesDoAsInTmux: every code point whose UTF-8
// encoding holds a byte 0x80–0x9F, on the screen and in titles (OSC 0 and
// 2), OSC 7, OSC 8, OSC 52, OSC 133 and DCS strings, written by a program
// in a signaltty pane and in a tmux pane: the same rows (no string leaks
// text or swallows any), the same titles, and no bell in the pane.
//
// tmux leaves out what its C library calls unprintable (wcwidth < 0:
// unassigned code points, U+0080–U+009F): it prints nothing for them and
// refuses a title that holds one. Those are a width table's verdicts, not
// the parsing under test, so the screen run tells which characters tmux
// shows, and the comparison is on those; that the rest stay characters in
// signaltty is term's TestEveryCharacterHoldingAC1ByteStaysACharacter.
func TestCharactersHoldingC1BytesDoAsInTmux(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	// Every title is its own pane.title event (no coalescing): the strings
	// subtest reads each batch's title from its event. About 30 MB of
	// input, which a daemon built with the race detector takes minutes to
	// parse on a loaded machine; what this test asks is what the parser
	// makes of the bytes, and the code it reaches runs under the detector
	// in the other OSC and title tests.
	d := harness.Start(t, harness.Options{WithoutRace: true, Env: []string{"SIGNALTTY_TITLE_INTERVAL_MS=0"}})
	dir := harness.TempDir(t)

	// The screen: each batch of characters, '|' and its number on a row.
	shown := map[rune]bool{}
	var shownInOrder []rune
	t.Run("screen", func(t *testing.T) {
		var in strings.Builder
		joins := map[rune]bool{} // characters right after one of no width
		for i, s := range c1CodePoints(200) {
			fmt.Fprintf(&in, "%s|%d\r\n", s, i)
			prev := 'x'
			for _, r := range s {
				joins[r] = spacing(prev) < 0 || clusters(prev) || clusters(r)
				prev = r
			}
		}
		in.WriteString("END-OF-SCREEN\r\n")
		file := filepath.Join(dir, "screen.bin")
		if err := os.WriteFile(file, []byte(in.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := "cat " + file + "; exec sleep 100000"
		m := startPlainTmux(t, 200, 24, cmd)
		want := m.waitRow(t, "END-OF-SCREEN")
		w := d.CreateWorkspace(t, "c1screen")
		p := d.Spawn(t, append(ws(w), "--cols", "200", "--history-rows", "100000"), "sh", "-c", cmd)
		harness.Eventually(t, drawTimeout, "the pane shows END-OF-SCREEN", func() (bool, string) {
			c := d.Capture(t, p.ID)
			return c.HasLine("END-OF-SCREEN"), c.Dump()
		})
		got := paneRows(t, d, p.ID)
		if len(got) != len(want) {
			t.Errorf("%d rows, tmux %d", len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			// What a grapheme table makes of a character of no width and
			// the one after it is its own verdict: both are left out.
			unjoined := func(r rune) rune {
				if joins[r] {
					return -1
				}
				return spacing(r)
			}
			tm := strings.Map(unjoined, printed(want[i]))
			for _, r := range tm {
				if r >= 0x80 && !shown[r] {
					shown[r] = true
					shownInOrder = append(shownInOrder, r)
				}
			}
			// The characters tmux shows, in the same order, on the same row.
			g := strings.Map(func(r rune) rune {
				if r < 0x80 || shown[r] {
					return r
				}
				return -1
			}, strings.Map(unjoined, printed(got[i])))
			if g != tm {
				t.Fatalf("row %d = %+.300q, tmux %+.300q", i, g, tm)
			}
		}
		if g := getAgentPane(t, d, p.ID); g.Attention == "unread" {
			t.Errorf("attention %q after printing characters", g.Attention)
		}
		if len(shownInOrder) < 100000 {
			t.Fatalf("tmux showed only %d of the characters", len(shownInOrder))
		}
	})

	t.Run("strings", func(t *testing.T) {
		batches := c1CodePoints(1000) // a title holds up to 1024 bytes
		var in strings.Builder
		for i, s := range batches {
			title := "\x1b]0;" + s + "\x07"
			if i%2 == 1 {
				title = "\x1b]2;" + s + "\x1b\\"
			}
			fmt.Fprintf(&in, "%s\x1b]7;file:///%s\x07\x1b]8;id=%s;file:///%s\x07L\x1b]8;;\x07\x1b]52;c;%s\x07\x1b]133;A;aid=%s\x07\x1bP1$r%s\x1b\\%d\r\n",
				title, s, s, s, s, s, s, i)
		}
		in.WriteString("END-OF-STRINGS\r\n")
		file := filepath.Join(dir, "strings.bin")
		if err := os.WriteFile(file, []byte(in.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := "cat " + file + "; exec sleep 100000"

		m := startPlainTmux(t, 80, 24, cmd)
		want := m.waitRow(t, "END-OF-STRINGS")

		w := d.CreateWorkspace(t, "c1strings")
		evs := d.Subscribe(t, []string{"pane.title", "pane.bell"}, nil)
		p := d.Spawn(t, append(ws(w), "--history-rows", "100000"), "sh", "-c", cmd)
		harness.Eventually(t, drawTimeout, "END-OF-STRINGS in the pane", func() (bool, string) {
			c := d.Capture(t, p.ID)
			return c.HasLine("END-OF-STRINGS"), c.Dump()
		})
		got := paneRows(t, d, p.ID)
		if len(got) != len(want) {
			t.Errorf("%d rows, tmux %d", len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("row %d = %.200q, tmux %.200q", i, got[i], want[i])
			}
		}
		if g := getAgentPane(t, d, p.ID); g.Attention == "unread" {
			t.Errorf("attention %q: a string terminator rang the bell", g.Attention)
		}
		// Every title, as its pane.title event, holds its batch; on the
		// characters tmux shows, the titles read as tmux's.
		var titles []string
		harness.Eventually(t, harness.PollTimeout, "a pane.title event per title", func() (bool, string) {
			titles = titles[:0]
			for _, e := range evs.Seen() {
				if e.Resource != p.ID {
					continue
				}
				if e.Type == "pane.bell" {
					t.Fatalf("pane.bell: %s", e.Raw)
				}
				s, _ := e.Data["title"].(string)
				titles = append(titles, s)
			}
			return len(titles) >= len(batches), fmt.Sprintf("%d of %d", len(titles), len(batches))
		})
		var ours strings.Builder
		for i, s := range titles {
			if want := withoutC1CodePoints(batches[i]); s != want {
				t.Fatalf("title %d = %.200q, want %.200q", i, s, want)
			}
			for _, r := range s {
				if shown[r] {
					ours.WriteRune(r)
				}
			}
		}
		if theirs := tmuxTitlesOf(t, dir, shownInOrder); ours.String() != theirs {
			t.Errorf("titles: %d bytes of characters tmux shows, tmux's titles %d bytes", ours.Len(), len(theirs))
		}
	})
}

// printed is a row's characters without the spaces between them: the
// columns each character takes are the width tables' business (tmux's is
// the C library's), not this test's.
func printed(row string) string { return strings.ReplaceAll(row, " ", "") }

// clusters reports whether r makes one grapheme cluster with an ASCII
// letter before or after it (a mark, a spacing mark, a prepended sign).
func clusters(r rune) bool {
	before, _ := ansi.FirstGraphemeCluster("x"+string(r), ansi.GraphemeWidth)
	after, _ := ansi.FirstGraphemeCluster(string(r)+"x", ansi.GraphemeWidth)
	return before != "x" || after != string(r)
}

// spacing maps the characters that take no column of their own in
// signaltty's width table (marks, format characters such as the Arabic
// number signs, which join the next character) to -1: where such a
// character goes is a grapheme table's verdict, and tmux's differs.
func spacing(r rune) rune {
	if ansi.StringWidth(string(r)) == 0 {
		return -1
	}
	return r
}

// tmuxTitlesOf returns what tmux makes of chars given as titles of 50,000
// characters (tmux takes titles of any length up to its 1 MiB string
// limit, so this is a few round trips), joined.
func tmuxTitlesOf(t *testing.T, dir string, chars []rune) string {
	t.Helper()
	var out strings.Builder
	for start, k := 0, 0; start < len(chars); k++ {
		end := min(start+50000, len(chars))
		in := "\x1b]2;" + string(chars[start:end]) + fmt.Sprintf("\x07done %d\r\n", k)
		file := filepath.Join(dir, fmt.Sprintf("titles%d.bin", k))
		if err := os.WriteFile(file, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		m := startPlainTmux(t, 80, 24, "cat "+file+"; exec sleep 100000")
		m.waitRow(t, fmt.Sprintf("done %d", k))
		title := strings.TrimSuffix(m.run(t, "display", "-p", "-t", "0", "#{pane_title}"), "\n")
		if title != string(chars[start:end]) {
			t.Fatalf("tmux refused or changed the title of characters %d–%d (%.100q)", start, end, title)
		}
		out.WriteString(title)
		start = end
	}
	return out.String()
}
