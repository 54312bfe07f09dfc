package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	vl "github.com/varlink/go/varlink"
)

// ---- what is running, for cleanup on a fatal error or a signal ----

var running struct {
	mu   sync.Mutex
	next int
	stop map[int]func()
}

// track registers stop and returns a function that unregisters it.
func track(stop func()) (untrack func()) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.stop == nil {
		running.stop = map[int]func(){}
	}
	id := running.next
	running.next++
	running.stop[id] = stop
	return func() {
		running.mu.Lock()
		delete(running.stop, id)
		running.mu.Unlock()
	}
}

// stopAll stops everything still registered, newest first.
func stopAll() {
	running.mu.Lock()
	stops := running.stop
	running.stop = nil
	running.mu.Unlock()
	ids := make([]int, 0, len(stops))
	for id := range stops {
		ids = append(ids, id)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	for _, id := range ids {
		stops[id]()
	}
}

// ---- signalttyd ----

// daemon is a private signalttyd: its own runtime and state directories and
// socket, no logind, no autostart.
type daemon struct {
	dir     string
	addr    string
	env     []string
	cmd     *exec.Cmd
	conn    *vl.Connection // housekeeping connection
	done    chan struct{}
	untrack func()
}

// startDaemon starts signalttyd with extra environment variables (NAME=VALUE)
// added to the bench's own.
func startDaemon(bin, parent string, extra ...string) (*daemon, error) {
	dir, err := os.MkdirTemp(parent, "signaltty-")
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"run", "state", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	sock := filepath.Join(dir, "run", "sock")
	d := &daemon{dir: dir, addr: "unix:" + sock, done: make(chan struct{})}
	d.env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"HOME="+filepath.Join(dir, "home"),
		"SIGNALTTY_ADDRESS="+d.addr,
		"SIGNALTTY_LOGIND=0",
		"SIGNALTTY_NO_AUTOSTART=1",
	)
	d.env = append(d.env, extra...)
	logf, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		return nil, err
	}
	d.cmd = exec.Command(filepath.Join(bin, "signalttyd"))
	d.cmd.Env = d.env
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.cmd.Wait(); logf.Close(); close(d.done) }()
	d.untrack = track(d.stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := vl.NewConnection(context.Background(), d.addr)
		if err == nil {
			d.conn = c
			return d, nil
		}
		select {
		case <-d.done:
			return nil, fmt.Errorf("signalttyd exited; log in %s", filepath.Join(dir, "daemon.log"))
		default:
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("signalttyd did not answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

// stop sends SIGTERM and waits (SIGKILL after 30 s).
func (d *daemon) stop() {
	if d.untrack != nil {
		d.untrack()
	}
	if d.conn != nil {
		d.conn.Close()
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
	}
	os.RemoveAll(d.dir)
}

// cli runs the signaltty CLI against this daemon.
func (d *daemon) cli(bin string, args ...string) ([]byte, error) {
	c := exec.Command(filepath.Join(bin, "signaltty"), args...)
	c.Env = d.env
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, fmt.Errorf("signaltty %s: %v: %s%s", strings.Join(args, " "), err, stderr.Bytes(), out)
	}
	return out, nil
}

// call makes one varlink call on the housekeeping connection.
func (d *daemon) call(method string, params any, out any) error {
	return call(d.conn, method, params, out)
}

func call(c *vl.Connection, method string, params any, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var raw json.RawMessage
	if err := c.Call(ctx, method, params, &raw); err != nil {
		var ve *vl.Error
		if errors.As(err, &ve) {
			if p, ok := ve.Parameters.(*json.RawMessage); ok && p != nil {
				return fmt.Errorf("%s: %s %s", method, ve.Name, *p)
			}
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// runWait calls Run.Wait (a streaming call) and returns the final record.
func runWait(c *vl.Connection, run string, output bool) (record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	recv, err := c.Send(ctx, "dev.signaltty.Run.Wait", map[string]any{"run": run, "output": output}, vl.More)
	if err != nil {
		return record{}, err
	}
	for {
		var r struct{ Record record }
		flags, err := recv(ctx, &r)
		if err != nil {
			return record{}, err
		}
		if flags&vl.Continues == 0 {
			return r.Record, nil
		}
	}
}

type record struct {
	Run    string `json:"run"`
	Pane   string `json:"pane"`
	State  string `json:"state"`
	Status *int   `json:"status"`
}

type captureReply struct {
	Epoch  int64    `json:"epoch"`
	Oldest int64    `json:"oldest"`
	End    int64    `json:"end"`
	First  int64    `json:"first"`
	Cols   int      `json:"cols"`
	Rows   int      `json:"rows"`
	Lines  []string `json:"lines"`
}

func (d *daemon) createWorkspace(name string) error {
	return d.call("dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": name}, nil)
}

func (d *daemon) spawn(ws string, cols, rows int, argv ...string) (string, error) {
	var r struct{ Pane struct{ ID string } }
	err := d.call("dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": ws, "argv": argv, "cols": cols, "rows": rows}, &r)
	return r.Pane.ID, err
}

func (d *daemon) capture(pane string, start, end *int64) (captureReply, error) {
	p := map[string]any{"pane": pane}
	if start != nil {
		p["start"] = *start
	}
	if end != nil {
		p["end"] = *end
	}
	var c captureReply
	err := d.call("dev.signaltty.Mux.CaptureRows", p, &c)
	return c, err
}

func (d *daemon) removePane(pane string) error {
	return d.call("dev.signaltty.Mux.RemovePane", map[string]any{"pane": pane, "kill": true}, nil)
}

// ---- tmux ----

// tmuxBin is one tmux build to compare with: the system's, and Debian 13's
// unpacked by tests/harness/get-tmux.sh.
type tmuxBin struct {
	key     string   // sample key: "tmux" (the system's) or "tmux35"
	label   string   // as tables show it, e.g. "tmux 3.3a"
	argv    []string // the command that runs it
	version string   // `tmux -V`
}

// shell is the command as a /bin/sh word list, for use inside a pane.
func (t *tmuxBin) shell() string {
	q := make([]string, len(t.argv))
	for i, a := range t.argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// systemTmux is the tmux on PATH.
func systemTmux() (*tmuxBin, error) {
	t := &tmuxBin{key: "tmux", argv: []string{"tmux"}}
	return t, t.probe()
}

// argvTmux reads a command from file, one word a line (get-tmux.sh's
// DEST/argv).
func argvTmux(key, file string) (*tmuxBin, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	t := &tmuxBin{key: key, argv: strings.Fields(string(b))}
	if len(t.argv) == 0 {
		return nil, fmt.Errorf("%s: empty", file)
	}
	return t, t.probe()
}

func (t *tmuxBin) probe() error {
	c := exec.Command(t.argv[0], append(t.argv[1:], "-V")...)
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s -V: %v: %s", strings.Join(t.argv, " "), err, bytes.TrimSpace(out))
	}
	t.version = strings.TrimSpace(string(out))
	t.label = t.version
	return nil
}

// tmuxServer is a private tmux server (own socket, no configuration file).
type tmuxServer struct {
	bin     *tmuxBin
	sock    string
	pid     int
	untrack func()
}

func startTmux(parent string, bin *tmuxBin) (*tmuxServer, error) {
	dir, err := os.MkdirTemp(parent, "tmux-")
	if err != nil {
		return nil, err
	}
	t := &tmuxServer{bin: bin, sock: filepath.Join(dir, "sock")}
	t.untrack = track(t.stop)
	if _, err := t.run("new-session", "-d", "-s", "base", "-x", "80", "-y", "24", "sleep", "infinity"); err != nil {
		t.stop()
		return nil, err
	}
	// history-limit applies to panes created afterwards.
	for _, o := range [][]string{{"set", "-g", "history-limit", "10000"}, {"set", "-g", "status", "off"}, {"set", "-g", "default-size", "80x24"}} {
		if _, err := t.run(o...); err != nil {
			t.stop()
			return nil, err
		}
	}
	out, err := t.run("display", "-p", "-t", "base", "#{pid}")
	if err != nil {
		t.stop()
		return nil, err
	}
	t.pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	return t, nil
}

func (t *tmuxServer) run(args ...string) ([]byte, error) {
	a := append(append(append([]string{}, t.bin.argv[1:]...), "-S", t.sock, "-f", "/dev/null"), args...)
	c := exec.Command(t.bin.argv[0], a...)
	c.Env = append(os.Environ(), "TMUX=")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		cmd := strings.Join(args, " ")
		if len(cmd) > 300 {
			cmd = cmd[:300] + "…"
		}
		return out, fmt.Errorf("%s %s: %v: %s", t.bin.label, cmd, err, stderr.Bytes())
	}
	return out, nil
}

// chain runs several tmux commands joined by ";", as few client
// invocations as tmux's message size allows (about 16 KiB of arguments; a
// batch is cut at 8 KiB), one after another; it returns their output in
// order.
func (t *tmuxServer) chain(cmds [][]string) ([]byte, error) {
	var out []byte
	for len(cmds) > 0 {
		var args []string
		n, size := 0, 0
		for ; n < len(cmds); n++ {
			l := 2
			for _, a := range cmds[n] {
				l += len(a) + 1
			}
			if n > 0 && size+l > 8192 {
				break
			}
			if n > 0 {
				args = append(args, ";")
			}
			args = append(args, cmds[n]...)
			size += l
		}
		o, err := t.run(args...)
		out = append(out, o...)
		if err != nil {
			return out, err
		}
		cmds = cmds[n:]
	}
	return out, nil
}

// client is the tmux command line for this server, for a pane's shell.
func (t *tmuxServer) client() string {
	return t.bin.shell() + " -S '" + t.sock + "'"
}

func (t *tmuxServer) stop() {
	t.untrack()
	t.run("kill-server")
	if t.pid > 0 {
		for i := 0; i < 200 && alive(t.pid); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	os.RemoveAll(filepath.Dir(t.sock))
}

// ---- private systemd --user (tests/harness/user-systemd.sh) ----

type userSystemd struct {
	script, dir string
	env         []string
	untrack     func()
}

func startUserSystemd(root, parent string) (*userSystemd, error) {
	u := &userSystemd{script: filepath.Join(root, "tests/harness/user-systemd.sh"), dir: filepath.Join(parent, "usd")}
	u.untrack = track(u.stop)
	out, err := exec.Command(u.script, "start", u.dir).Output()
	if err != nil {
		u.stop()
		return nil, fmt.Errorf("user-systemd.sh start: %v", err)
	}
	env := os.Environ()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "export ")
		if !ok {
			continue
		}
		env = append(env, strings.Fields(line)...)
	}
	u.env = env
	return u, nil
}

func (u *userSystemd) stop() {
	u.untrack()
	c := exec.Command(u.script, "stop", u.dir)
	c.Stderr = nil
	c.Run()
}

// ---- /proc ----

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// rssKiB is VmRSS of pid.
func rssKiB(pid int) int64 { return statusKiB(pid, "VmRSS:") }

// timeslices sums, over pid's threads, how many times each ran on a CPU
// (the third field of /proc/<pid>/task/<tid>/schedstat).
func timeslices(pid int) int64 {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var n int64
	for _, e := range ents {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, e.Name()))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) == 3 {
			v, _ := strconv.ParseInt(f[2], 10, 64)
			n += v
		}
	}
	return n
}
