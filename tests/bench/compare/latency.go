package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/term"
	vl "github.com/varlink/go/varlink"
)

// Start `true` and wait for its end, as a client would.

// latSignaltty: `signaltty run --key K --workspace W -- true` then
// `signaltty run wait --run R` (two CLI invocations).
func latSignaltty(b *bench) (time.Duration, error) {
	d := b.sig
	key := fmt.Sprintf("lat-%d", b.next())
	t0 := time.Now()
	out, err := d.cli(b.bin, "--json", "run", "--key", key, "--workspace", "lat", "--", "true")
	if err != nil {
		return 0, err
	}
	var st struct{ Run, Pane string }
	if err := json.Unmarshal(out, &st); err != nil {
		return 0, err
	}
	if _, err := d.cli(b.bin, "run", "wait", "--run", st.Run); err != nil {
		return 0, err
	}
	el := time.Since(t0)
	return el, d.removePane(st.Pane)
}

// cliHasWait tells whether this build's `signaltty run` takes --wait
// (start and wait in one invocation).
func cliHasWait(b *bench) bool {
	out, _ := exec.Command(filepath.Join(b.bin, "signaltty"), "run", "--help").CombinedOutput()
	return regexp.MustCompile(`(?m)^\s+--wait\b`).Match(out) // a flag line of the help
}

// latSignalttyWait: `signaltty run --key K --workspace W --wait -- true`
// (one CLI invocation); it must exit 0. Its pane is removed afterwards,
// untimed (found by listing the workspace, whatever the command printed).
func latSignalttyWait(b *bench) (time.Duration, error) {
	d := b.sig
	key := fmt.Sprintf("latw-%d", b.next())
	t0 := time.Now()
	if _, err := d.cli(b.bin, "run", "--key", key, "--workspace", "latw", "--wait", "--", "true"); err != nil {
		return 0, err
	}
	el := time.Since(t0)
	var ps struct{ Panes []struct{ ID string } }
	if err := d.call("dev.signaltty.Mux.ListPanes", map[string]any{"workspace": "latw"}, &ps); err != nil {
		return 0, err
	}
	for _, p := range ps.Panes {
		if err := d.removePane(p.ID); err != nil {
			return 0, err
		}
	}
	return el, nil
}

// latTmux: `tmux new-window -d true` then `tmux wait-for CH`, signalled by a
// pane-exited hook (two client invocations, no shell).
func latTmux(t *tmuxServer) (time.Duration, error) {
	t0 := time.Now()
	if _, err := t.run("new-window", "-d", "-t", "lat:", "true"); err != nil {
		return 0, err
	}
	if _, err := t.run("wait-for", "latdone"); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func setupLatency(b *bench) error {
	if err := b.sig.createWorkspace("lat"); err != nil {
		return err
	}
	if err := b.sig.createWorkspace("latw"); err != nil {
		return err
	}
	for _, t := range b.tmuxes {
		if _, err := t.run("new-session", "-d", "-s", "lat", "sleep", "infinity"); err != nil {
			return err
		}
		if _, err := t.run("set-hook", "-t", "lat", "pane-exited", "wait-for -S latdone"); err != nil {
			return err
		}
	}
	return nil
}

// latSystemdRun: `systemd-run --user --wait --pipe -q true` against the
// private user manager.
func latSystemdRun(b *bench) (time.Duration, error) {
	c := exec.Command("systemd-run", "--user", "--wait", "--pipe", "-q", "true")
	c.Env = b.usd.env
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	c.Stdin = devnull
	t0 := time.Now()
	out, err := c.CombinedOutput()
	el := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("systemd-run: %v: %s", err, out)
	}
	return el, nil
}

// latInproc: Run.Start then Run.Wait on one open varlink connection.
func latInproc(b *bench, conn *vl.Connection) (time.Duration, error) {
	key := fmt.Sprintf("inproc-%d", b.next())
	t0 := time.Now()
	var st struct{ Run, Pane string }
	if err := call(conn, "dev.signaltty.Run.Start", map[string]any{"key": key, "workspace": "lat", "argv": []string{"true"}}, &st); err != nil {
		return 0, err
	}
	rec, err := runWait(conn, st.Run, true)
	el := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if rec.Status == nil || *rec.Status != 0 {
		return 0, fmt.Errorf("run %s: %+v", st.Run, rec)
	}
	return el, b.sig.removePane(st.Pane)
}

// latFloor: what any daemon must do: open a PTY, start `true` on it, reap
// it (pty.Start until Done, then Close), in this process.
func latFloor(*bench) (time.Duration, error) {
	t0 := time.Now()
	replies := pty.NewReplies()
	out := term.NewTerminal(term.Config{Cols: 80, Rows: 24, Replies: replies}) // a pane's terminal
	p, err := pty.Start(pty.Config{Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", Cols: 80, Rows: 24, Replies: replies}, out)
	if err != nil {
		out.Close()
		return 0, err
	}
	<-p.Done()
	p.Close()
	return time.Since(t0), nil
}

func dialDaemon(d *daemon) (*vl.Connection, error) {
	return vl.NewConnection(context.Background(), d.addr)
}
