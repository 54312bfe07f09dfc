package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// One cgroup per pane under a real user manager with Delegate=yes
// (docs/systemd.md, "One cgroup per pane").

type cgroupsStatus struct {
	Mode        string   `json:"mode"`
	Path        string   `json:"path"`
	Controllers []string `json:"controllers"`
	Reason      string   `json:"reason"`
	Escaped     []struct {
		Pane string `json:"pane"`
		Pids []int  `json:"pids"`
	} `json:"escaped"`
}

type paneWithCgroup struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Cgroup *struct {
		Path        string `json:"path"`
		Pids        []int  `json:"pids"`
		Escaped     []int  `json:"escaped"`
		MemoryBytes *int64 `json:"memory_bytes"`
		CPUUsec     *int64 `json:"cpu_usec"`
		MemoryMax   *int64 `json:"memory_max"`
		PidsMax     *int64 `json:"pids_max"`
	} `json:"cgroup"`
}

// mjson runs `signaltty --json args` against the manager's daemon and decodes the reply.
func mjson(t *testing.T, m *harness.UserManager, out any, args ...string) {
	t.Helper()
	r := m.CLI(t, append([]string{"--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("want exit status 0:\n%s", r)
	}
	if err := json.Unmarshal([]byte(r.Stdout), out); err != nil {
		t.Fatalf("%v:\n%s", err, r)
	}
}

// managerWorkspace creates a workspace named name in the manager's daemon
// and returns its id.
func managerWorkspace(t *testing.T, m *harness.UserManager, name string) string {
	t.Helper()
	var ws struct {
		Workspace struct {
			ID string `json:"id"`
		} `json:"workspace"`
	}
	mjson(t, m, &ws, "workspace", "create", "--name", name)
	return ws.Workspace.ID
}

func managerCgroups(t *testing.T, m *harness.UserManager) cgroupsStatus {
	t.Helper()
	var st struct {
		Status struct {
			Cgroups *cgroupsStatus `json:"cgroups"`
		} `json:"status"`
	}
	mjson(t, m, &st, "status")
	if st.Status.Cgroups == nil {
		t.Fatal("Server.GetStatus has no cgroups")
	}
	return *st.Status.Cgroups
}

func getPaneCgroup(t *testing.T, m *harness.UserManager, id string) paneWithCgroup {
	t.Helper()
	var r struct {
		Pane paneWithCgroup `json:"pane"`
	}
	mjson(t, m, &r, "pane", "get", "--pane", id)
	return r.Pane
}

// escapeePid waits for the pid a pane's program wrote to file.
func escapeePid(t *testing.T, file string) int {
	t.Helper()
	var pid int
	harness.Eventually(t, harness.PollTimeout, "the escapee's pid is written to "+file, func() (bool, string) {
		b, err := os.ReadFile(file)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false, string(b)
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil, string(b)
	})
	return pid
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	harness.Eventually(t, harness.PollTimeout, what+" (pid "+strconv.Itoa(pid)+") is gone", func() (bool, string) { return !alive(pid), "" })
}

// escapeScript starts a descendant that leaves the pane's session and
// process group (setsid) and writes its own pid to file once outside; the
// leader waits for that (so the PTY's hangup at its exit cannot reach the
// descendant before it left), then runs rest.
func escapeScript(file, rest string) string {
	return "setsid sh -c 'echo $$ >" + file + ".tmp; mv " + file + ".tmp " + file + "; exec sleep 300' </dev/null >/dev/null 2>&1 & " +
		"while [ ! -e " + file + " ]; do sleep 0.05; done; " + rest
}

func TestPaneCgroupsUnderAUserManager(t *testing.T) {
	t.Parallel()
	m := harness.StartUserManager(t)
	cg := managerCgroups(t, m)
	if cg.Mode != "delegated" {
		t.Fatalf("the user manager runs signaltty.service with Delegate=yes, yet cgroups are %q (%s)", cg.Mode, cg.Reason)
	}
	ws := managerWorkspace(t, m, "cg")
	dir := harness.TempDir(t)
	spawn := func(script string) paneWithCgroup {
		var r struct {
			Pane paneWithCgroup `json:"pane"`
		}
		mjson(t, m, &r, "pane", "spawn", "--workspace", ws, "--", "sh", "-c", script)
		return r.Pane
	}

	t.Run("killing a pane stops what left its process group", func(t *testing.T) {
		f := filepath.Join(dir, "kill")
		p := spawn(escapeScript(f, "exec sleep 1000"))
		pid := escapeePid(t, f)
		got := getPaneCgroup(t, m, p.ID)
		if got.Cgroup == nil || !slices.Contains(got.Cgroup.Pids, pid) {
			t.Fatalf("pane get must list the escapee %d in the pane's cgroup: %+v", pid, got.Cgroup)
		}
		if got.Cgroup.CPUUsec == nil {
			t.Fatalf("pane get reports no CPU use: %+v", got.Cgroup)
		}
		if !strings.HasPrefix(got.Cgroup.Path, cg.Path+"/") {
			t.Fatalf("the pane's cgroup %s is not below the daemon's %s", got.Cgroup.Path, cg.Path)
		}
		m.CLI(t, "pane", "kill", "--pane", p.ID)
		waitGone(t, pid, "the escapee of a killed pane")
	})

	t.Run("a leader that exits on its own leaves its escapees, named, until removal", func(t *testing.T) {
		f := filepath.Join(dir, "exit")
		p := spawn(escapeScript(f, "exit 0"))
		pid := escapeePid(t, f)
		var got paneWithCgroup
		harness.Eventually(t, harness.PollTimeout, "the pane exited", func() (bool, string) {
			got = getPaneCgroup(t, m, p.ID)
			return got.State == "exited", got.State
		})
		if got.Cgroup == nil || !slices.Equal(got.Cgroup.Escaped, []int{pid}) {
			t.Fatalf("pane get must name the escapee %d: %+v", pid, got.Cgroup)
		}
		if !alive(pid) {
			t.Fatalf("the escapee %d of a leader that exited normally was stopped", pid)
		}
		if e := managerCgroups(t, m).Escaped; len(e) != 1 || e[0].Pane != p.ID || !slices.Equal(e[0].Pids, []int{pid}) {
			t.Fatalf("status cgroups.escaped = %+v, want %s with [%d]", e, p.ID, pid)
		}
		if r := m.CLI(t, "doctor"); !strings.Contains(r.Stdout, "pids "+strconv.Itoa(pid)) {
			t.Fatalf("doctor does not name the escapee %d:\n%s", pid, r)
		}
		m.CLI(t, "pane", "remove", "--pane", p.ID)
		waitGone(t, pid, "the escapee of a removed pane")
		if _, err := os.Stat(got.Cgroup.Path); !os.IsNotExist(err) {
			t.Fatalf("the removed pane's cgroup %s is still there (%v)", got.Cgroup.Path, err)
		}
	})

	t.Run("a relaunch ends what the previous process left running", func(t *testing.T) {
		f := filepath.Join(dir, "relaunch")
		p := spawn(escapeScript(f, "exit 0"))
		pid := escapeePid(t, f)
		harness.Eventually(t, harness.PollTimeout, "the pane exited", func() (bool, string) {
			got := getPaneCgroup(t, m, p.ID)
			return got.State == "exited", got.State
		})
		os.Remove(f)
		if r := m.CLI(t, "pane", "relaunch", "--pane", p.ID); r.Code != 0 {
			t.Fatalf("relaunch:\n%s", r)
		}
		waitGone(t, pid, "the escapee of the pane's previous process")
		next := escapeePid(t, f)
		if got := getPaneCgroup(t, m, p.ID); got.Cgroup == nil || !slices.Contains(got.Cgroup.Pids, next) {
			t.Fatalf("the relaunched process's escapee %d is not in the pane's new cgroup: %+v", next, got.Cgroup)
		}
		if r := m.CLI(t, "pane", "remove", "--kill", "--pane", p.ID); r.Code != 0 {
			t.Fatalf("remove --kill:\n%s", r)
		}
		waitGone(t, next, "the escapee of a removed pane")
	})

	t.Run("a run's deadline stops what left its process group", func(t *testing.T) {
		f := filepath.Join(dir, "run")
		var r struct {
			Run string `json:"run"`
		}
		mjson(t, m, &r, "run", "--key", "cg-deadline", "--workspace", ws, "--deadline-ms", "1000",
			"--shell", escapeScript(f, "sleep 100"))
		pid := escapeePid(t, f)
		res := m.CLI(t, "run", "wait", "--run", r.Run)
		if res.Code != 124 {
			t.Fatalf("want exit status 124 (deadline):\n%s", res)
		}
		waitGone(t, pid, "the escapee of a run ended by its deadline")
	})

	t.Run("a process that left its pane's ancestry and session is still the pane's principal", func(t *testing.T) {
		f := filepath.Join(dir, "whoami")
		// The escapee waits until its parent exited (it is reparented,
		// outside the pane's session and ancestry), then asks who it is.
		script := "sh -c 'p=$$; setsid sh -c \"while kill -0 $p 2>/dev/null; do sleep 0.05; done; SIGNALTTY_NO_AUTOSTART=1 SIGNALTTY_PANE=pane_000000000000 " +
			harness.Bin(t, "signaltty") + " --json whoami > " + f + ".tmp; mv " + f + ".tmp " + f + "\" </dev/null >/dev/null 2>&1 & exit 0'; exec sleep 1000"
		p := spawn(script)
		var b []byte
		harness.Eventually(t, harness.PollTimeout, "the escapee's whoami", func() (bool, string) {
			var err error
			b, err = os.ReadFile(f)
			return err == nil, ""
		})
		var w harness.WhoAmI
		if err := json.Unmarshal(b, &w); err != nil || w.Principal != "pane:"+p.ID {
			t.Fatalf("the escapee resolved to %s, want pane:%s (its cgroup)", b, p.ID)
		}
		m.CLI(t, "pane", "kill", "--pane", p.ID)
	})

	t.Run("limits need their controller", func(t *testing.T) {
		r := m.CLI(t, "--json", "pane", "spawn", "--workspace", ws, "--pids-max", "64", "--", "sleep", "100")
		if slices.Contains(cg.Controllers, "pids") {
			if r.Code != 0 {
				t.Fatalf("pids-max with the pids controller:\n%s", r)
			}
			return
		}
		harness.CheckFail(t, r, "unavailable.cgroup", 6)
	})

	t.Run("stopping the service leaves no pane process", func(t *testing.T) {
		f := filepath.Join(dir, "stop")
		spawn(escapeScript(f, "exit 0"))
		pid := escapeePid(t, f)
		m.Systemctl(t, "stop", "signaltty.service")
		waitGone(t, pid, "an escapee after systemctl --user stop")
	})
}

// TestCgroupsOffWithoutSystemd: a daemon started by hand works as before
// and says why panes share its cgroup.
func TestCgroupsOffWithoutSystemd(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	var st struct {
		Status struct {
			Cgroups *cgroupsStatus `json:"cgroups"`
		} `json:"status"`
	}
	d.JSON(t, &st, "status")
	if st.Status.Cgroups == nil || st.Status.Cgroups.Mode != "off" || st.Status.Cgroups.Reason == "" {
		t.Fatalf("want cgroups off with a reason: %+v", st.Status.Cgroups)
	}
	if r := d.CLI(t, "doctor"); !strings.Contains(r.Stdout, "cgroups: off") {
		t.Fatalf("doctor does not say the cgroup mode:\n%s", r)
	}
}
