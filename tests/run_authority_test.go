package tests

// Who owns and may read or stop a run: the owner, and other principals
// through their grants (authz_run_test.go).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A run started by the owner is owned by the caller: its record names the
// principal of the start result.
func TestRunOwnedByCaller(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "owner").ID
	t.Run("owner's run is owned by the caller", func(t *testing.T) {
		for _, st := range d.StartBoth(t, harness.ArgvSpec("own", ws, "true")) {
			rec := d.WaitBoth(t, st.Run)
			if rec.Principal != st.Principal || st.Principal == "" {
				t.Errorf("record principal %q, start principal %q", rec.Principal, st.Principal)
			}
		}
	})
	t.Run("grants beyond the caller's fail denied.delegation with no side effects", func(t *testing.T) { authDelegation(t, d, ws) })
}

// The owner reads, lists (by pane and by key), cancels and sees events of
// a run; the command inside the run's pane reads its own run
// (SIGNALTTY_RUN) and cancels itself.
func TestRunOwnerAndOwnCommandReadAndCancel(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "read").ID
	dir := harness.TempDir(t)
	cli := harness.Bin(t, "signaltty")
	events := d.Subscribe(t, []string{"run"}, nil)
	for _, tr := range harness.Both(d) {
		got := filepath.Join(dir, "get-"+tr.Short())
		// The command reads its own run, then cancels it: the cancel
		// stops its own process group, the CLI inside included.
		self := fmt.Sprintf(`export SIGNALTTY_NO_AUTOSTART=1; '%s' --json run get --run "$SIGNALTTY_RUN" > '%s'; '%s' --json run cancel --run "$SIGNALTTY_RUN" --grace-ms 200; sleep 100`, cli, got, cli)
		st := tr.MustStart(t, harness.ShellSpec("self-"+tr.Short(), ws, self))
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "terminated", nil, "SIGHUP", "cancel", 125)
		b, err := os.ReadFile(got)
		if err != nil {
			t.Fatalf("the run could not read its own record: %v", err)
		}
		var own struct {
			Record harness.RunRecord `json:"record"`
		}
		if err := json.Unmarshal(b, &own); err != nil || own.Record.Run != st.Run || own.Record.State != "running" {
			t.Errorf("the run's own get: %s", b)
		}
		// The owner lists it (by pane and by key) and saw its events.
		for _, tr2 := range harness.Both(d) {
			for _, l := range []harness.Reply{tr2.List(t, harness.RunListOptions{Pane: st.Pane}), tr2.List(t, harness.RunListOptions{Key: st.Key})} {
				runs := l.List(t).Runs
				if len(runs) != 1 || runs[0].Run != st.Run {
					t.Errorf("list via %s: want only %s: %s", tr2.Name, st.Run, l)
				}
			}
		}
		events.WaitSeen(t, "run.completed of "+st.Run, func(e harness.Event) bool {
			return e.Type == "run.completed" && e.Resource == st.Run
		})
	}
	authRunReaders(t, d, ws)
}
