package tests

// The events of a run's life: which ones each step publishes, in one turn
// and in which order, and the run in the Events snapshot until it expires
// (docs/events.md, docs/run-wait.md).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A subscriber from before the run and fresh snapshots: start, cancel,
// completion, pane removal and expiry each publish their events in one
// turn, in order; the snapshot holds the run until expiry; a subscription
// to the run keeps its events after the pane is removed.
func TestRunEventTurns(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "events").ID
	live := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	t.Cleanup(func() { d.CLI(t, "pane", "kill", "--pane", live.ID, "--grace-ms", "200") })

	var sequences [][]string
	for _, tr := range harness.Both(d) {
		all := d.Subscribe(t, nil, nil)
		st := tr.MustStart(t, harness.ShellSpec("ev-"+tr.Short(), ws, "exec sleep 100"))
		byRun := d.Subscribe(t, nil, []string{st.Run})
		turn := func(what string, last string, types ...string) []harness.Event {
			t.Helper()
			match := func(e harness.Event) bool {
				return e.Type == last && (e.Resource == st.Run || e.Resource == st.Pane || e.Resource == st.Tab)
			}
			all.WaitSeen(t, last+" of "+what, match)
			es := all.Seen()
			// The turn: the len(types) events up to that one, consecutive, in this order.
			var idx int
			for i, e := range es {
				if match(e) {
					idx = i
				}
			}
			if idx+1 < len(types) {
				t.Fatalf("%s: too few events:\n%s", what, harness.DumpEvents(es))
			}
			group := es[idx+1-len(types) : idx+1]
			for i, e := range group {
				if e.Type != types[i] || (i > 0 && e.Seq != group[i-1].Seq+1) {
					t.Errorf("%s: want %v in one turn, got:\n%s", what, types, harness.DumpEvents(es))
					break
				}
			}
			return group
		}
		// entity is the run in a fresh snapshot (nil when absent).
		entity := func() *harness.SnapshotRun {
			snap, _ := d.EventsSnapshot(t)
			for _, x := range snap.Runs {
				if x.Run == st.Run {
					return &x
				}
			}
			return nil
		}
		g := turn("start", "run.started", "tab.created", "pane.created", "tab.layout_changed", "run.started")
		if g[3].Data["run"] != st.Run || g[3].Data["pane"] != st.Pane {
			t.Errorf("run.started data %s", g[3].Raw)
		}
		harness.SameJSON(t, "the run entity after start", entity(), harness.SnapshotRun{Run: st.Run, Pane: st.Pane, State: "running"})

		r := tr.Cancel(t, st.Run, "TERM", harness.Ptr(200))
		if r.Err != nil {
			t.Fatalf("cancel: %s", r)
		}
		turn("cancel", "run.terminating", "pane.terminating", "run.terminating")
		g = turn("completion", "run.completed", "pane.exited", "run.completed")
		harness.SameJSON(t, "run.completed data", g[1].Data, map[string]any{"run": st.Run, "pane": st.Pane, "outcome": "terminated", "signal": "SIGTERM", "cause": "cancel"})
		want := harness.SnapshotRun{Run: st.Run, Pane: st.Pane, State: "completed",
			Outcome: harness.Ptr("terminated"), Signal: harness.Ptr("SIGTERM"), Cause: harness.Ptr("cancel")}
		harness.SameJSON(t, "the run entity after completion", entity(), want)

		rm := tr.Call(t, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": st.Pane}, "pane", "remove", "--pane", st.Pane)
		if rm.Err != nil {
			t.Fatalf("pane remove: %s", rm)
		}
		turn("pane removal", "tab.removed", "pane.removed", "tab.removed")
		harness.SameJSON(t, "the run entity after its pane's removal", entity(), want)
		d.GetBoth(t, st.Run, nil)

		tr.SetRunConfig(t, harness.RunConfigChange{RetainCount: harness.Ptr(0)})
		turn("expiry", "run.expired", "run.expired")
		if e := entity(); e != nil {
			t.Errorf("the snapshot still has the expired run: %s", e.Raw)
		}
		tr.SetRunConfig(t, harness.RunConfigChange{RetainCount: harness.Ptr(256)})
		byRun.WaitSeen(t, "run.expired on the run's own subscription", func(e harness.Event) bool {
			return e.Type == "run.expired"
		})
		if types := harness.Types(byRun.Seen()); strings.Join(types, " ") != "run.terminating run.completed run.expired" {
			t.Errorf("events about %s: %v", st.Run, types)
		}
		sequences = append(sequences, harness.Types(all.Seen()))
		all.Close()
		byRun.Close()
	}
	harness.SameJSON(t, "event sequences of the CLI-driven and the varlinkctl-driven run", sequences[0], sequences[1])

	t.Run("open command at exit", func(t *testing.T) {
		all := d.Subscribe(t, nil, nil)
		for _, tr := range harness.Both(d) {
			st := tr.MustStart(t, harness.ShellSpec("open-"+tr.Short(), ws, `printf '\033]133;C\007'; exec sleep 100`))
			all.WaitSeen(t, "command.started of "+st.Pane, func(e harness.Event) bool {
				return e.Type == "command.started" && e.Resource == st.Pane
			})
			if r := tr.Cancel(t, st.Run, "", harness.Ptr(200)); r.Err != nil {
				t.Fatalf("cancel: %s", r)
			}
			done := all.WaitSeen(t, "run.completed of "+st.Run, func(e harness.Event) bool {
				return e.Type == "run.completed" && e.Resource == st.Run
			})
			var got []string
			for _, e := range all.Seen() {
				if e.Seq >= done.Seq-2 && e.Seq <= done.Seq {
					got = append(got, e.Type+":"+fmt.Sprint(e.Data["reason"]))
				}
			}
			if want := "command.finished:pane_exit pane.exited:<nil> run.completed:<nil>"; strings.Join(got, " ") != want {
				t.Errorf("completion turn %v, want %s:\n%s", got, want, harness.DumpEvents(all.Seen()))
			}
		}
	})

	t.Run("split and deadline", func(t *testing.T) {
		all := d.Subscribe(t, nil, nil)
		for _, tr := range harness.Both(d) {
			st := tr.MustStart(t, harness.RunSpec{Key: "split-" + tr.Short(), Pane: live.ID, Axis: "cols", Argv: []string{"sleep", "100"}, DeadlineMs: harness.Ptr(300)})
			term := all.WaitSeen(t, "run.terminating of "+st.Run, func(e harness.Event) bool {
				return e.Type == "run.terminating" && e.Resource == st.Run
			})
			var got []string
			for _, e := range all.Seen() {
				if e.Seq > term.Seq {
					break
				}
				if e.Resource == st.Run || e.Resource == st.Pane || e.Resource == live.ID || e.Resource == st.Tab {
					got = append(got, e.Type)
				}
			}
			want := "pane.created pane.resized tab.layout_changed run.started pane.terminating run.terminating"
			if strings.Join(got, " ") != want {
				t.Errorf("split run with a deadline: %v, want %s", got, want)
			}
			harness.WantOutcome(t, d.WaitBoth(t, st.Run), "terminated", nil, "SIGHUP", "deadline", 124)
			all = d.Subscribe(t, nil, nil)
		}
	})
}
