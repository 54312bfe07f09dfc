package harness

// What a request that fails must leave unchanged: the daemon's entities,
// runs, child processes, PTYs and events.

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// EventsSnapshot returns Events.Subscribe's snapshot and its seq (one call
// without "more"; docs/events.md).
func (d *Daemon) EventsSnapshot(t testing.TB) (EventsSnapshot, int64) {
	t.Helper()
	c := d.Dial(t)
	defer c.Close()
	var r struct {
		Seq      int64           `json:"seq"`
		Snapshot *EventsSnapshot `json:"snapshot"`
	}
	MustCall(t, c, "dev.signaltty.Events.Subscribe", map[string]any{"snapshot": true}, &r)
	if r.Snapshot == nil {
		t.Fatalf("Subscribe with snapshot returned no snapshot")
	}
	return *r.Snapshot, r.Seq
}

// ChildPids lists the daemon's child processes (zombies included), sorted.
func (d *Daemon) ChildPids() []int {
	var out []int
	for _, p := range Children(d.Pid()) {
		out = append(out, p.Pid)
	}
	sort.Ints(out)
	return out
}

// PTYMasters counts the PTY masters the daemon holds open.
func (d *Daemon) PTYMasters(t testing.TB) int {
	n := 0
	for _, target := range FDs(t, d.Pid()) {
		if strings.Contains(target, "ptmx") {
			n++
		}
	}
	return n
}

// World is everything a failed request must leave unchanged.
type World struct {
	d        *Daemon
	seq      int64
	entities string // Events.Subscribe snapshot: workspaces, tabs, panes, runs
	runs     string // Run.List
	children []int  // the daemon's child processes
	ptys     int    // PTY masters the daemon holds
	events   *Stream
}

// TakeWorld records the daemon's state and subscribes to its events.
func (d *Daemon) TakeWorld(t testing.TB) World {
	t.Helper()
	w := World{d: d, events: d.Subscribe(t, nil, nil)}
	snap, seq := d.EventsSnapshot(t)
	_, b := canonical(snap)
	w.seq, w.entities = seq, string(b)
	c := d.Dial(t)
	defer c.Close()
	var l json.RawMessage
	MustCall(t, c, "dev.signaltty.Run.List", map[string]any{}, &l)
	_, lb := canonical(l)
	w.runs = string(lb)
	w.children = d.ChildPids()
	w.ptys = d.PTYMasters(t)
	return w
}

// Unchanged requires no new run, workspace, tab, pane, child, PTY or event
// since the world was taken.
func (w World) Unchanged(t testing.TB, what string) {
	t.Helper()
	d := w.d
	now := d.TakeWorld(t)
	defer now.events.Close()
	defer w.events.Close()
	if now.seq != w.seq {
		t.Errorf("%s: events were published (seq %d → %d):\n%s", what, w.seq, now.seq, DumpEvents(w.events.Seen()))
	}
	if now.entities != w.entities {
		t.Errorf("%s: workspaces, tabs, panes or runs changed:\n  before %s\n  after  %s", what, w.entities, now.entities)
	}
	if now.runs != w.runs {
		t.Errorf("%s: Run.List changed:\n  before %s\n  after  %s", what, w.runs, now.runs)
	}
	if !reflect.DeepEqual(now.children, w.children) {
		t.Errorf("%s: the daemon's children changed: %v → %v\n%s", what, w.children, now.children, DumpProcs(Children(d.Pid())))
	}
	if now.ptys != w.ptys {
		t.Errorf("%s: the daemon holds %d PTY masters, had %d", what, now.ptys, w.ptys)
	}
	if seen := w.events.Seen(); len(seen) > 0 {
		t.Errorf("%s: a subscriber saw events:\n%s", what, DumpEvents(seen))
	}
}

// CheckOnlyAdded requires the snapshot after to equal before plus entities
// whose ids are in mine: no entity disappeared, and apart from workspaces
// none changed.
func CheckOnlyAdded(t testing.TB, before, after EventsSnapshot, mine map[string]bool) {
	t.Helper()
	b, a := snapshotEntities(t, before), snapshotEntities(t, after)
	for _, kind := range []string{"workspaces", "tabs", "panes", "runs"} {
		idKey := strings.TrimSuffix(kind, "s")
		old := map[string]string{}
		for _, x := range b[kind] {
			old[x.id] = x.json
		}
		for _, x := range a[kind] {
			if prev, ok := old[x.id]; ok {
				if prev != x.json && kind != "workspaces" {
					t.Errorf("%s %s changed: %s → %s", idKey, x.id, prev, x.json)
				}
				delete(old, x.id)
			} else if !mine[x.id] {
				t.Errorf("a new %s %s belongs to no started run: %s", idKey, x.id, x.json)
			}
		}
		for id := range old {
			t.Errorf("%s %s disappeared", idKey, id)
		}
	}
}

type snapshotEntity struct{ id, json string }

// snapshotEntities lists the entities of each kind of a snapshot with
// their ids and canonical JSON.
func snapshotEntities(t testing.TB, s EventsSnapshot) map[string][]snapshotEntity {
	t.Helper()
	var kinds map[string]json.RawMessage
	if err := json.Unmarshal(s.Raw, &kinds); err != nil {
		t.Fatalf("snapshot: %v: %s", err, s.Raw)
	}
	out := map[string][]snapshotEntity{}
	for _, kind := range []string{"workspaces", "tabs", "panes", "runs"} {
		var xs []map[string]any
		if err := json.Unmarshal(kinds[kind], &xs); err != nil || xs == nil {
			t.Fatalf("snapshot without a list of %s (%v): %s", kind, err, s.Raw)
		}
		idKey := strings.TrimSuffix(kind, "s")
		for _, x := range xs {
			id, _ := x[idKey].(string)
			b, _ := json.Marshal(x)
			out[kind] = append(out[kind], snapshotEntity{id, string(b)})
		}
	}
	return out
}
