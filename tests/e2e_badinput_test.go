package tests

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// daemonState is what a refused request must leave unchanged.
type daemonState struct {
	workspaces, tabs, panes, live int
	wsTabs                        string
	children                      string
	sizes                         string
}

func stateOf(t *testing.T, d *harness.Daemon, w harness.Workspace) daemonState {
	t.Helper()
	st := d.Status(t)
	wk, _, panes := d.GetWorkspace(t, w.ID)
	var kids, sizes []string
	for _, p := range harness.Children(d.Pid()) {
		kids = append(kids, fmt.Sprint(p.Pid))
	}
	sort.Strings(kids)
	for _, p := range panes {
		sizes = append(sizes, fmt.Sprintf("%s:%dx%d", p.ID, p.Cols, p.Rows))
	}
	return daemonState{st.Workspaces, st.Tabs, st.Panes, st.LivePanes, strings.Join(wk.Tabs, ","), strings.Join(kids, ","), strings.Join(sizes, ",")}
}

// Bad requests fail with their exact code and exit status and leave nothing behind.
func TestBadInput(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "bad")
	live := sleeper(t, d, w)

	dir := harness.TempDir(t)
	notExec := filepath.Join(dir, "not-executable")
	noShebang := filepath.Join(dir, "no-shebang")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noShebang, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	before := stateOf(t, d, w)
	fdsBefore := len(harness.FDs(t, d.Pid()))
	unchanged := func(t *testing.T) {
		t.Helper()
		if after := stateOf(t, d, w); after != before {
			t.Errorf("a refused request changed the daemon:\nbefore %+v\nafter  %+v", before, after)
		}
	}

	spawn := func(flags ...string) []string { return append([]string{"pane", "spawn"}, flags...) }
	cases := []struct {
		name string
		code string
		exit int
		args []string
	}{
		{"unknown pane get", "not_found.pane", exitNotFound, []string{"pane", "get", "--pane", "pane_000000000000"}},
		{"unknown pane send", "not_found.pane", exitNotFound, []string{"pane", "send", "--pane", "pane_000000000000", "--text", "x"}},
		{"unknown pane capture", "not_found.pane", exitNotFound, []string{"pane", "capture", "--pane", "pane_000000000000"}},
		{"unknown pane kill", "not_found.pane", exitNotFound, []string{"pane", "kill", "--pane", "pane_000000000000"}},
		{"unknown pane remove", "not_found.pane", exitNotFound, []string{"pane", "remove", "--pane", "pane_000000000000", "--kill"}},
		{"unknown pane split", "not_found.pane", exitNotFound, spawn("--split", "pane_000000000000", "--axis", "cols", "--", "sleep", "1")},
		{"unknown workspace get", "not_found.workspace", exitNotFound, []string{"workspace", "get", "--workspace", "no-such-ws"}},
		{"unknown workspace spawn", "not_found.workspace", exitNotFound, spawn("--workspace", "no-such-ws", "--", "sleep", "1")},
		{"unknown workspace remove", "not_found.workspace", exitNotFound, []string{"workspace", "remove", "--workspace", "ws_000000000000", "--recursive"}},
		{"empty argv", "invalid_params.argv", exitInvalid, spawn("--workspace", w.ID)},
		{"empty argv0", "invalid_params.argv", exitInvalid, spawn("--workspace", w.ID, "--", "")},
		{"cols 0", "invalid_params.size", exitInvalid, spawn("--workspace", w.ID, "--cols", "0", "--", "sleep", "1")},
		{"rows 1001", "invalid_params.size", exitInvalid, spawn("--workspace", w.ID, "--rows", "1001", "--", "sleep", "1")},
		{"missing program path", "unavailable.spawn", exitUnavailable, spawn("--workspace", w.ID, "--", "/nonexistent/program")},
		{"missing program in PATH", "unavailable.spawn", exitUnavailable, spawn("--workspace", w.ID, "--", "no-such-program-e2e")},
		{"non-executable file", "unavailable.spawn", exitUnavailable, spawn("--workspace", w.ID, "--", notExec)},
		{"script without #!", "unavailable.spawn", exitUnavailable, spawn("--workspace", w.ID, "--", noShebang)},
		{"split failing spawn", "unavailable.spawn", exitUnavailable, spawn("--split", live.ID, "--axis", "cols", "--", "/nonexistent/program")},
		{"workspace and split", "invalid_params.target", exitInvalid, spawn("--workspace", w.ID, "--split", live.ID, "--axis", "cols", "--", "sleep", "1")},
		{"workspace and tab", "invalid_params.target", exitInvalid, spawn("--workspace", w.ID, "--tab", live.Tab, "--", "sleep", "1")},
		{"no target", "invalid_params.target", exitInvalid, spawn("--", "sleep", "1")},
		{"split without axis", "invalid_params.target", exitInvalid, spawn("--split", live.ID, "--", "sleep", "1")},
		{"missing cwd", "invalid_params.cwd", exitInvalid, spawn("--workspace", w.ID, "--cwd", "/nonexistent/dir", "--", "sleep", "1")},
		{"bad env name", "invalid_params.env", exitInvalid, spawn("--workspace", w.ID, "--env", "1BAD=x", "--", "sleep", "1")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d.Fail(t, c.code, c.exit, c.args...)
			unchanged(t)
		})
	}

	t.Run("no descriptors left", func(t *testing.T) {
		// The CLI's connections are closed; the daemon's descriptors return to where they were.
		harness.Eventually(t, harness.PollTimeout, "the daemon's descriptor count returns to its count before the bad requests", func() (bool, string) {
			fds := harness.FDs(t, d.Pid())
			return len(fds) <= fdsBefore+2, fmt.Sprintf("%d descriptors, %d before: %v", len(fds), fdsBefore, fds)
		})
	})

	conn := d.Dial(t)
	t.Run("NUL in argv", func(t *testing.T) {
		for _, argv := range [][]string{{"sleep", "1\x00"}, {"sle\x00ep", "1"}} {
			err := harness.Call(t, conn, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": w.ID, "argv": argv}, nil)
			harness.CheckCallError(t, err, "dev.signaltty.Mux.InvalidParams", "invalid_params.argv")
		}
		unchanged(t)
	})

	t.Run("oversize send", func(t *testing.T) {
		// A reader that takes everything: exactly 1 MiB is accepted.
		sink := d.Spawn(t, ws(w), "sh", "-c", "stty raw -echo; echo ready; exec cat >/dev/null")
		d.WaitLine(t, sink.ID, "ready")
		var sent struct {
			Written int `json:"written"`
		}
		mib := strings.Repeat("a", 1<<20)
		harness.MustCall(t, conn, "dev.signaltty.Mux.SendInput", map[string]any{"pane": sink.ID, "text": mib}, &sent)
		if sent.Written != 1<<20 {
			t.Errorf("1 MiB send: written %d, want %d", sent.Written, 1<<20)
		}
		err := harness.Call(t, conn, "dev.signaltty.Mux.SendInput", map[string]any{"pane": sink.ID, "text": mib + "b"}, nil)
		harness.CheckCallError(t, err, "dev.signaltty.Mux.InvalidParams", "invalid_params.size")
		data := base64.StdEncoding.EncodeToString([]byte(mib + "b"))
		err = harness.Call(t, conn, "dev.signaltty.Mux.SendInput", map[string]any{"pane": sink.ID, "data": data}, nil)
		harness.CheckCallError(t, err, "dev.signaltty.Mux.InvalidParams", "invalid_params.size")
		// Nothing of a refused input reaches the program: a shell shows none of it.
		b := bash(t, d, ws(w))
		err = harness.Call(t, conn, "dev.signaltty.Mux.SendInput", map[string]any{"pane": b.ID, "text": "echo LEAKED\n" + mib}, nil)
		harness.CheckCallError(t, err, "dev.signaltty.Mux.InvalidParams", "invalid_params.size")
		run(t, d, b.ID, "echo after", "after")
		if c := d.Capture(t, b.ID); c.Contains("LEAKED") || c.Contains("aaaa") {
			t.Errorf("part of a refused input reached the shell:\n%s", c.Dump())
		}
		for _, p := range []harness.Pane{sink, b} {
			if r := d.CLI(t, "pane", "remove", "--pane", p.ID, "--kill"); r.Code != 0 {
				t.Fatalf("cleanup:\n%s", r)
			}
		}
		unchanged(t)
	})

	t.Run("request over 16 MiB", func(t *testing.T) {
		c := d.DialUnix(t)
		// One message without its terminating NUL, longer than 16 MiB.
		head := []byte(`{"method":"dev.signaltty.Server.GetStatus","parameters":{"pad":"`)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		writeErr := make(chan error, 1)
		go func() {
			if _, err := c.Write(head); err != nil {
				writeErr <- err
				return
			}
			for i := 0; i < 17; i++ {
				if _, err := c.Write(chunk); err != nil {
					writeErr <- err // the daemon hung up: expected once it refused the message
					return
				}
			}
			_, err := c.Write([]byte(`"}}` + "\x00"))
			writeErr <- err
		}()
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		rd := bufio.NewReader(c)
		msg, err := rd.ReadBytes(0)
		if err != nil {
			t.Fatalf("no reply to an oversize request (want an error reply, then the connection closed): %v", err)
		}
		var reply struct {
			Error      string             `json:"error"`
			Parameters harness.ErrorReply `json:"parameters"`
		}
		if err := json.Unmarshal(msg[:len(msg)-1], &reply); err != nil {
			t.Fatalf("undecodable reply %q: %v", msg, err)
		}
		if !strings.HasSuffix(reply.Error, ".InvalidParams") || reply.Parameters.Code != "invalid_params.size" || reply.Parameters.Message == "" {
			t.Errorf("reply to an oversize request: %s, want an InvalidParams error with code invalid_params.size", msg)
		}
		// Then the connection ends.
		rest, err := io.ReadAll(rd)
		if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("after the error reply: %v, want the connection closed", err)
		}
		if len(rest) != 0 {
			t.Errorf("more data after the error reply: %q", rest)
		}
		c.Close()
		<-writeErr
		// The daemon still answers others.
		st := d.Status(t)
		if st.Pid != d.Pid() {
			t.Errorf("status after the oversize request: %+v", st)
		}
		unchanged(t)
	})

	if g := d.GetPane(t, live.ID); g.State != "live" || harness.Gone(live.PID()) {
		t.Errorf("bad requests disturbed the live pane: %+v", g)
	}
}
