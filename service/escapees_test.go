package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service/procs"
	"golang.org/x/sys/unix"
)

// newMarkedService is newTestService with pane marks below the test
// process's own hard RLIMIT_RTTIME (the test process itself stays unmarked).
func newMarkedService(t *testing.T) *Service {
	t.Helper()
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_RTTIME, &l); err != nil || l.Max < procs.MinRoom {
		t.Skipf("RLIMIT_RTTIME hard limit %d: no room for pane marks", l.Max)
	}
	s := New(Config{Version: "test", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet, Mark: PaneMark{Reference: l.Max}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// cpuHogs starts a busy process per CPU that ends with the test. They run
// at the lowest CPU priority (nice 19): they keep every CPU busy, so that
// the runs' children and the sweeps wait for the scheduler, without
// starving the tests of other packages that run beside this one.
func cpuHogs(t *testing.T) {
	t.Helper()
	for range runtime.NumCPU() {
		c := exec.Command("nice", "-n", "19", "sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
}

// Runs of true started all at once beside busy CPUs leave nothing behind:
// none counts as having escaped descendants.
func TestConcurrentTrueRunsCountNoEscapees(t *testing.T) {
	total := 2000
	if testing.Short() {
		total = 300
	}
	s := newMarkedService(t)
	w, err := s.CreateWorkspace("load", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cpuHogs(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range total {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			st, err := s.Runs().Start(context.Background(), RunRequest{Key: "true-" + strconv.Itoa(i), Workspace: w.ID, Argv: []string{"true"}})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Runs().Wait(context.Background(), st.Run, -1, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s.sweeps.Wait()
	if n := s.Status().Escaped; n != 0 {
		t.Errorf("%d of %d runs of true counted as having escaped descendants", n, total)
	}
}

// escapeeScript starts a process that leaves the pane's session, ignores
// SIGHUP and writes its pid to file; the leader then runs rest.
func escapeeScript(file, rest string) string {
	return fmt.Sprintf(`setsid sh -c 'trap "" HUP; echo $$ > %[1]s; exec sleep 600' </dev/null >/dev/null 2>&1 & `+
		`while [ ! -s %[1]s ]; do sleep 0.01; done; %[2]s`, file, rest)
}

// readPid waits for the pid a pane's process wrote into file and pins it.
func readPid(t *testing.T, file string) (pid, pidfd int) {
	t.Helper()
	waitFor(t, "the escapee's pid", func() bool {
		b, err := os.ReadFile(file)
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 1
	})
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd of the escapee %d: %v", pid, err)
	}
	t.Cleanup(func() { unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0); unix.Close(pidfd) })
	return pid, pidfd
}

// A process that left the pane's session and ignores SIGHUP is stopped when
// the pane ends: when its leader exits on its own, and when the pane is killed.
func TestPaneEndStopsMarkedEscapee(t *testing.T) {
	s := newMarkedService(t)
	dir := t.TempDir()
	w, err := s.CreateWorkspace("escapee", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, rest string
		kill       bool
	}{
		{"leader exits", "exit 0", false},
		{"pane killed", "exec sleep 600", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".pid")
			p, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", escapeeScript(file, tc.rest)}})
			if err != nil {
				t.Fatal(err)
			}
			pid, pidfd := readPid(t, file)
			if tc.kill {
				if _, err := s.KillPane(context.Background(), p.ID, "", -1); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, fmt.Sprintf("the escapee %d stopped", pid), func() bool { return procs.Exited(pidfd) })
			s.sweeps.Wait()

			if n := s.Status().Escaped; n != 0 {
				t.Errorf("status escaped = %d, want 0: the escapee was stopped", n)
			}
		})
	}
}

// A process that starts another when it gets SIGHUP does not outlive the
// sweep with it: the next round finds the new one.
func TestSweepFindsWhatAnEscapeeStartsOnHangup(t *testing.T) {
	s := newMarkedService(t)
	dir := t.TempDir()
	w, err := s.CreateWorkspace("escapee", dir)
	if err != nil {
		t.Fatal(err)
	}
	file, child := filepath.Join(dir, "escapee.pid"), filepath.Join(dir, "child.pid")
	inner := fmt.Sprintf(`trap "setsid sleep 600 & echo \$! > %s" HUP; echo $$ > %s; while :; do sleep 0.05; done`, child, file)
	script := fmt.Sprintf(`setsid sh -c '%s' </dev/null >/dev/null 2>&1 & while [ ! -s %s ]; do sleep 0.01; done; exit 0`, inner, file)
	if _, err := s.SpawnPane(SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	_, pidfd := readPid(t, file)
	_, childfd := readPid(t, child) // written when the sweep's SIGHUP arrives
	waitFor(t, "the escapee stopped", func() bool { return procs.Exited(pidfd) })
	s.sweeps.Wait()
	if !procs.Exited(childfd) {
		t.Errorf("what the escapee started on SIGHUP outlived the sweep")
	}
	if n := s.Status().Escaped; n != 0 {
		t.Errorf("status escaped = %d, want 0", n)
	}
}
