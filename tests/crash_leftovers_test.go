package tests

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// leftoverStatus is the part of Server.GetStatus about earlier daemons'
// unclean exits.
type leftoverStatus struct {
	Status struct {
		PreviousDaemons []struct {
			Pid            int     `json:"pid"`
			StartedAt      *string `json:"started_at"`
			LastSeenAt     *string `json:"last_seen_at"`
			State          string  `json:"state"`
			LeftoversKnown bool    `json:"leftovers_known"`
			Leftovers      []struct {
				Pid  int    `json:"pid"`
				Name string `json:"name"`
			} `json:"leftovers"`
		} `json:"previous_daemons"`
	} `json:"status"`
}

// leftoverPids returns the pids of the leftovers the daemon reports for
// the unclean exit of pid, and whether it reports that exit at all.
func leftoverPids(t *testing.T, d *harness.Daemon, pid int) ([]int, bool) {
	t.Helper()
	var st leftoverStatus
	d.JSON(t, &st, "status")
	for _, e := range st.Status.PreviousDaemons {
		if e.Pid != pid {
			continue
		}
		if !e.LeftoversKnown || e.StartedAt == nil || e.State != "running" {
			t.Errorf("unclean exit of pid %d: %+v", pid, e)
		}
		var out []int
		for _, l := range e.Leftovers {
			out = append(out, l.Pid)
		}
		return out, true
	}
	return nil, false
}

// After kill -9 of the daemon, a pane leader that ignores SIGHUP dies with
// it (the parent-death signal), while its child, which ignores SIGHUP too,
// keeps running. The next daemon of the state directory reports the
// unclean exit and that process in doctor and status, a clean stop passes
// the report on to the daemon after it while the process runs, and
// `doctor --stop-leftovers` stops it; then a clean stop leaves nothing to
// report.
func TestLeftoversOfAKilledDaemonAreReportedAndStopped(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.CreateWorkspace(t, "w")
	p, leader, sleeper := spawnTrappedSleep(t, d)
	t.Cleanup(func() { syscall.Kill(sleeper, syscall.SIGKILL) })
	d.CLI(t, "save")
	daemonPid := d.Pid()
	d.Crash(t)

	harness.WaitGone(t, harness.PollTimeout, "the pane leader, which ignores SIGHUP, dies with the daemon", leader)
	if harness.Gone(sleeper) {
		t.Fatalf("the pane's sleep, which ignores SIGHUP, did not outlive the daemon: nothing left to find")
	}
	os.Remove(d.Socket)
	d2 := harness.Start(t, harness.Options{Dir: d.Dir})
	if rp := restoredPanes(t, d2)[p.ID]; rp.RestoreState != "RESTORED" || rp.PID() != 0 {
		t.Errorf("the pane after the crash: restore_state %s, pid %d; want RESTORED without a process", rp.RestoreState, rp.PID())
	}
	pids, ok := leftoverPids(t, d2, daemonPid)
	if !ok || !slices.Equal(pids, []int{sleeper}) {
		t.Fatalf("status after the crash: unclean exit reported %v, leftovers %v; want the sleep %d", ok, pids, sleeper)
	}
	doc := d2.CLI(t, "doctor")
	for _, want := range []string{fmt.Sprintf("a previous daemon (pid %d", daemonPid), "exited uncleanly",
		fmt.Sprintf("1 process of its panes still runs: %d sleep", sleeper), "--stop-leftovers"} {
		if !strings.Contains(doc.Stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, doc.Stdout)
		}
	}
	if st := d2.CLI(t, "status"); !strings.Contains(st.Stdout, fmt.Sprintf("previous daemon: pid %d", daemonPid)) ||
		!strings.Contains(st.Stdout, fmt.Sprintf("%d sleep", sleeper)) {
		t.Errorf("status does not name the unclean exit and its leftover:\n%s", st.Stdout)
	}

	// A clean stop while the leftover runs: the next daemon still reports it.
	d2.Stop(t)
	d3 := harness.Start(t, harness.Options{Dir: d.Dir})
	if pids, ok := leftoverPids(t, d3, daemonPid); !ok || !slices.Equal(pids, []int{sleeper}) {
		t.Fatalf("after a clean restart: unclean exit reported %v, leftovers %v; want the sleep %d", ok, pids, sleeper)
	}
	r := d3.CLI(t, "doctor", "--stop-leftovers")
	if want := fmt.Sprintf("stopped 1 leftover process: %d sleep", sleeper); !strings.Contains(r.Stdout, want) {
		t.Errorf("doctor --stop-leftovers does not say %q:\n%s", want, r)
	}
	harness.WaitGone(t, harness.PollTimeout, "the leftover sleep is stopped", sleeper)
	if pids, ok := leftoverPids(t, d3, daemonPid); !ok || len(pids) != 0 {
		t.Errorf("after the stop: unclean exit reported %v, leftovers %v; want the exit without leftovers", ok, pids)
	}
	if r := d3.CLI(t, "doctor"); !strings.Contains(r.Stdout, "none of its panes' processes still runs") {
		t.Errorf("doctor after the stop:\n%s", r.Stdout)
	}

	// Nothing left: after a clean stop the next daemon reports nothing.
	d3.Stop(t)
	d4 := harness.Start(t, harness.Options{Dir: d.Dir})
	var st leftoverStatus
	d4.JSON(t, &st, "status")
	if len(st.Status.PreviousDaemons) != 0 {
		t.Errorf("after clean stops with no leftovers: previous_daemons %+v", st.Status.PreviousDaemons)
	}
	if r := d4.CLI(t, "doctor"); strings.Contains(r.Stdout, "uncleanly") {
		t.Errorf("doctor after clean stops:\n%s", r.Stdout)
	}
}

// The same with daemons the CLI autostarts (no systemd, no cgroups): after
// kill -9 of the first, the next call autostarts a second one, whose
// doctor names the leftover sleep, and `doctor --stop-leftovers` ends it.
func TestLeftoversOfAKilledAutostartedDaemon(t *testing.T) {
	t.Parallel()
	u := harness.Unstarted(t)
	var env []string
	for _, kv := range u.ClientEnv() {
		if !strings.HasPrefix(kv, "SIGNALTTY_NO_AUTOSTART=") {
			env = append(env, kv)
		}
	}
	cli := func(args ...string) harness.Result {
		r := harness.Run(t, env, harness.Bin(t, "signaltty"), args...)
		if r.Code != 0 {
			t.Fatalf("signaltty %v:\n%s", args, r)
		}
		return r
	}
	t.Cleanup(func() {
		pids := harness.DaemonsFor(u.Address)
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		harness.WaitGone(t, harness.StopTimeout, "the autostarted daemon exits on SIGTERM", pids...)
	})
	cli("workspace", "create", "--name", "w")
	first := harness.DaemonsFor(u.Address)
	if len(first) != 1 {
		t.Fatalf("autostarted daemons %v, want one", first)
	}
	_, leader, sleeper := spawnTrappedSleep(t, u)
	t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL); syscall.Kill(sleeper, syscall.SIGKILL) })

	if err := syscall.Kill(first[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.WaitGone(t, harness.StopTimeout, "the killed daemon", first[0])
	harness.WaitGone(t, harness.PollTimeout, "the pane leader, which ignores SIGHUP, dies with the daemon", leader)
	if harness.Gone(sleeper) {
		t.Fatalf("the pane's sleep did not outlive the daemon: nothing left to find")
	}
	doc := cli("doctor") // autostarts the next daemon
	for _, want := range []string{fmt.Sprintf("a previous daemon (pid %d", first[0]), "exited uncleanly",
		fmt.Sprintf("1 process of its panes still runs: %d sleep", sleeper)} {
		if !strings.Contains(doc.Stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, doc.Stdout)
		}
	}
	if r := cli("doctor", "--stop-leftovers"); !strings.Contains(r.Stdout, fmt.Sprintf("stopped 1 leftover process: %d sleep", sleeper)) {
		t.Errorf("doctor --stop-leftovers:\n%s", r.Stdout)
	}
	harness.WaitGone(t, harness.PollTimeout, "the leftover sleep is stopped", sleeper)
}

// spawnTrappedSleep spawns, in workspace w, a shell that ignores SIGHUP and
// runs sleep 600 as its child; it returns the pane, the shell's pid and the
// sleep's.
func spawnTrappedSleep(t *testing.T, d *harness.Daemon) (p harness.Pane, leader, sleeper int) {
	t.Helper()
	p = d.Spawn(t, []string{"--workspace", "w"}, "sh", "-c", "trap '' HUP; echo trapped; sleep 600; echo never")
	d.WaitLine(t, p.ID, "trapped")
	leader = d.GetPane(t, p.ID).PID()
	harness.Eventually(t, harness.PollTimeout, "the pane's sleep starts", func() (bool, string) {
		for _, c := range harness.Children(leader) {
			if c.Comm == "sleep" {
				sleeper = c.Pid
			}
		}
		return sleeper != 0, harness.DumpProcs(harness.Children(leader))
	})
	return p, leader, sleeper
}
