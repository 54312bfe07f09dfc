//go:build signaltty_testhooks

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service"
)

// Test builds (go build -tags signaltty_testhooks) take seams from files in
// $SIGNALTTY_TEST_HOOKS: while "barrier-<phase>-<key>" exists, a run start
// with that key waits at that phase of its start barrier after creating
// "reached-<phase>-<key>"; while "hold-<pid>" exists, the reap of that exited
// leader waits (a stand-in for uninterruptible sleep); while
// "hold-logind-save" exists, the logind monitor's shutdown save waits after
// creating "reached-logind-save"; once "wedge-state" exists, the service's
// lock is taken and never released (a wedged state owner, for the watchdog),
// then "reached-wedge-state" holds the daemon's pid.
func init() {
	installTestHooks = func(svc *service.Service) {
		dir := os.Getenv("SIGNALTTY_TEST_HOOKS")
		if dir == "" {
			return
		}
		waitGone := func(path string) {
			for {
				if _, err := os.Stat(path); err != nil {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		go profileHook(dir)
		svc.SetStartBarrier(func(key, phase string) {
			gate := filepath.Join(dir, "barrier-"+phase+"-"+key)
			if _, err := os.Stat(gate); err != nil {
				return
			}
			os.WriteFile(filepath.Join(dir, "reached-"+phase+"-"+key), nil, 0o600)
			waitGone(gate)
		})
		logindSaveHook = func() {
			gate := filepath.Join(dir, "hold-logind-save")
			if _, err := os.Stat(gate); err != nil {
				return
			}
			os.WriteFile(filepath.Join(dir, "reached-logind-save"), nil, 0o600)
			waitGone(gate)
		}
		go func() { // "wedge-state": the state owner's lock is taken for good (watchdog tests)
			for {
				if _, err := os.Stat(filepath.Join(dir, "wedge-state")); err == nil {
					svc.WedgeForTest()
					os.WriteFile(filepath.Join(dir, "reached-wedge-state"), []byte(strconv.Itoa(os.Getpid())), 0o600)
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		pty.SetReapHold(func(pid int) <-chan struct{} {
			ch := make(chan struct{})
			go func() {
				waitGone(filepath.Join(dir, "hold-"+strconv.Itoa(pid)))
				close(ch)
			}()
			return ch
		})
	}
}
