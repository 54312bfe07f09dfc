package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Tmux is a private tmux server (its own socket) whose one window runs a
// command: a real terminal emulator that is not ours, to drive
// `signaltty attach` in (send-keys types, capture-pane reads).
type Tmux struct {
	socket string
	env    []string
}

// NeedTmux skips the test when tmux is not installed (tests/run installs it).
func NeedTmux(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (tests/run installs it)")
	}
}

// Tmux starts a tmux server with a cols×rows window running argv (the CLI
// named "signaltty" is the built one) with the daemon's client environment
// and TERM as tmux sets it. The server is killed at cleanup.
func (d *Daemon) Tmux(t testing.TB, cols, rows int, argv ...string) *Tmux {
	t.Helper()
	NeedTmux(t)
	if len(argv) > 0 && argv[0] == "signaltty" {
		argv = append([]string{Bin(t, "signaltty")}, argv[1:]...)
	}
	dir := TempDir(t)
	m := &Tmux{socket: filepath.Join(dir, "tmux.sock"), env: d.ClientEnv()}
	conf := filepath.Join(dir, "tmux.conf")
	// remain-on-exit: when the command ends its window stays, so its last
	// screen can be read; no status line: the window is the whole size.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\nset -g default-terminal tmux-256color\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var cmdline []string
	for _, kv := range d.ClientEnv() {
		if strings.HasPrefix(kv, "SIGNALTTY_") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "HOME=") {
			cmdline = append(cmdline, shellQuote(kv))
		}
	}
	for _, a := range argv {
		cmdline = append(cmdline, shellQuote(a))
	}
	// A shell runs the command, then prints its exit status (Ended) and
	// stays, so what the command printed last stays readable.
	m.run(t, "-f", conf, "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"env "+strings.Join(cmdline, " ")+"; echo \"[client exit $?]\"; exec sleep 100000")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", m.socket, "kill-server").Run() })
	return m
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (m *Tmux) run(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", m.socket}, args...)...)
	cmd.Env = append(baseEnv(), "HOME="+os.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Tmux runs a tmux command against the server (e.g. set-buffer).
func (m *Tmux) Tmux(t testing.TB, args ...string) string {
	t.Helper()
	return m.run(t, args...)
}

// SendKeys types keys as tmux send-keys names them ("Enter", "C-c", or text).
func (m *Tmux) SendKeys(t testing.TB, keys ...string) {
	t.Helper()
	m.run(t, append([]string{"send-keys", "-t", "0"}, keys...)...)
}

// SendText types text literally (send-keys -l).
func (m *Tmux) SendText(t testing.TB, text string) {
	t.Helper()
	m.run(t, "send-keys", "-t", "0", "-l", text)
}

// Screen returns the window's rows as capture-pane -p prints them (no
// trailing spaces), exactly rows lines.
func (m *Tmux) Screen(t testing.TB) []string {
	t.Helper()
	out := m.run(t, "capture-pane", "-p", "-t", "0")
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// ScreenEscapes returns the window's rows with their attributes as escape
// sequences (capture-pane -p -e).
func (m *Tmux) ScreenEscapes(t testing.TB) string {
	t.Helper()
	return m.run(t, "capture-pane", "-p", "-e", "-t", "0")
}

// Resize sets the window's size, as a user resizing the outer terminal.
func (m *Tmux) Resize(t testing.TB, cols, rows int) {
	t.Helper()
	m.run(t, "resize-window", "-t", "0", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
}

// Pid is the pid of the window's command (the signaltty client), a child
// of the window's shell.
func (m *Tmux) Pid(t testing.TB) int {
	t.Helper()
	sh, err := strconv.Atoi(strings.TrimSpace(m.run(t, "display-message", "-p", "-t", "0", "#{pane_pid}")))
	if err != nil {
		t.Fatalf("tmux pane_pid: %v", err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh, sh))
	if err != nil {
		t.Fatalf("children of the window's shell: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		t.Fatalf("the window's shell has children %q, want the client alone", f)
	}
	pid, _ := strconv.Atoi(f[0])
	return pid
}

// Ended returns the command's exit status once it has ended, else -1.
func (m *Tmux) Ended(t testing.TB) int {
	t.Helper()
	for _, l := range m.Screen(t) {
		if v, ok := strings.CutPrefix(l, "[client exit "); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(v, "]"))
			return n
		}
	}
	return -1
}

// WaitScreen polls the window until cond holds for its rows (PollTimeout).
func (m *Tmux) WaitScreen(t testing.TB, what string, cond func([]string) bool) []string {
	t.Helper()
	var rows []string
	Eventually(t, PollTimeout, what, func() (bool, string) {
		rows = m.Screen(t)
		return cond(rows), strings.Join(rows, "\n")
	})
	return rows
}

// WaitEnded polls until the window's command has ended and returns its
// exit status.
func (m *Tmux) WaitEnded(t testing.TB) int {
	t.Helper()
	code := -1
	Eventually(t, PollTimeout, "the attached client ended", func() (bool, string) {
		code = m.Ended(t)
		return code >= 0, strings.Join(m.Screen(t), "\n")
	})
	return code
}

// SameRows compares a tmux window's rows with a pane's capture (trailing
// spaces left out on both sides): the first difference, or "".
func SameRows(window []string, c Capture) string {
	for i := 0; i < max(len(window), len(c.Lines)); i++ {
		var a, b string
		if i < len(window) {
			a = strings.TrimRight(window[i], " ")
		}
		if i < len(c.Lines) {
			b = strings.TrimRight(c.Lines[i], " ")
		}
		if a != b {
			return fmt.Sprintf("row %d: attached %q, capture %q", i, a, b)
		}
	}
	return ""
}
