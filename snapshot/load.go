package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// LoadInfo describes what Load found.
type LoadInfo struct {
	Path    string // snapshot.json
	Missing bool   // there was no snapshot: start empty
	// CorruptBackup is where an unreadable snapshot was moved (Err says
	// why); the daemon starts empty and should log both.
	CorruptBackup string
	Err           error
	// FromVersion is the file's snapshot_version (0 for a file from before
	// versioning); below Version the snapshot was migrated in memory.
	FromVersion int
	// Warnings list references that did not hold and were dropped or
	// repaired, and tail files that could not be read.
	Warnings []string
	// RemovedTails are tail files of panes not in the snapshot, deleted.
	RemovedTails []string
}

// Load reads snapshot.json and the tails of its panes (by pane id).
//
//   - No snapshot: (nil, nil, LoadInfo{Missing: true}, nil).
//   - Unreadable (not JSON, truncated, zero-length, not matching the schema):
//     the file is renamed to snapshot.corrupt-<UTC time>.json (a suffix is
//     added rather than replacing an older one) and Load returns
//     (nil, nil, LoadInfo{CorruptBackup, Err}, nil): start empty, log loudly.
//   - snapshot_version newer than Version: a *FutureVersionError; the file is
//     left as it is, and this Store's Save refuses to replace it.
//   - Older versions are migrated. References that do not hold (a tab of a
//     missing workspace, a layout leaf that is not a pane of its tab, a pane
//     of a missing tab, …) are dropped or repaired with a warning.
//
// Tail files of panes not in the snapshot are deleted, as are temporary
// files an interrupted save left. Any other error (an unreadable directory,
// say) is returned as is and counts as a failed Load.
func (s *Store) Load() (*Snapshot, map[string][]string, LoadInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trusted = false
	s.future = nil
	path := s.Path()
	info := LoadInfo{Path: path}

	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.removeTemps()
		info.Missing = true
		s.trusted = true
		return nil, nil, info, nil
	}
	if err != nil {
		return nil, nil, info, fmt.Errorf("snapshot: read %s: %w", path, err)
	}
	snap, from, err := decode(data)
	info.FromVersion = from
	var fv *FutureVersionError
	if errors.As(err, &fv) {
		fv.Path = path
		s.future = fv
		return nil, nil, info, fv
	}
	s.removeTemps()
	if err != nil {
		backup, berr := s.setAside(path)
		if berr != nil {
			return nil, nil, info, fmt.Errorf("snapshot: %s is unreadable (%v) and could not be set aside: %w", path, err, berr)
		}
		info.CorruptBackup = backup
		info.Err = fmt.Errorf("snapshot: %s: %w", path, err)
		s.trusted = true
		return nil, nil, info, nil
	}
	info.Warnings = repair(snap)
	tails, warns := s.readTails(snap, from)
	info.Warnings = append(info.Warnings, warns...)
	info.RemovedTails, _ = s.removeTails(paneTailNames(snap))
	s.pruned = nil
	s.trusted = true
	return snap, tails, info, nil
}

// removeTemps deletes the temporary files an interrupted save left.
func (s *Store) removeTemps() {
	for _, d := range []string{s.dir, filepath.Join(s.dir, historyDir), filepath.Join(s.dir, rotateDir)} {
		removeTemps(d)
	}
}

// readTails reads the tail of every pane of snap (of version v) that has
// one and remembers its contents, so that an unchanged tail is not written
// again.
func (s *Store) readTails(snap *Snapshot, v int) (map[string][]string, []string) {
	dir := filepath.Join(s.dir, historyDir)
	var tails map[string][]string
	var warns []string
	for i := range snap.Panes {
		id := snap.Panes[i].ID
		name := TailFile(id)
		data, ok, err := readTail(filepath.Join(dir, name))
		if err != nil {
			warns = append(warns, fmt.Sprintf("pane %q: history tail not read: %v", id, err))
			continue
		}
		if !ok {
			continue
		}
		if tails == nil {
			tails = make(map[string][]string, len(snap.Panes))
		}
		tails[id] = splitTail(data, v)
		s.tails[name] = tailState{maphash.Bytes(s.seed, data), int64(len(data))}
	}
	return tails, warns
}

// setAside renames an unreadable snapshot to snapshot.corrupt-<ts>.json,
// adding -1, -2, … rather than replacing an existing file.
func (s *Store) setAside(path string) (string, error) {
	base := "snapshot.corrupt-" + s.clock().UTC().Format(TimeLayout)
	for n := 0; n < 1000; n++ {
		name := base + ".json"
		if n > 0 {
			name = fmt.Sprintf("%s-%d.json", base, n)
		}
		dst := filepath.Join(s.dir, name)
		err := os.Link(path, dst)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// No hard links here: rename, having checked the name is free.
			if _, serr := os.Lstat(dst); serr == nil {
				continue
			}
			if err := os.Rename(path, dst); err != nil {
				return "", err
			}
		} else if err := os.Remove(path); err != nil {
			os.Remove(dst)
			return "", err
		}
		if err := s.sync.dir(s.dir); err != nil {
			return dst, fmt.Errorf("sync directory %s: %w", s.dir, err)
		}
		return dst, nil
	}
	return "", fmt.Errorf("too many corrupt snapshots named %s*", base)
}

// decode parses a snapshot file, migrating older versions. It returns the
// file's version and, for a newer one, a *FutureVersionError without Path.
func decode(data []byte) (*Snapshot, int, error) {
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err == nil && snap.SnapshotVersion == Version && isObject(data) {
		return &snap, Version, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, 0, errors.New("the file is empty")
	}
	if !isObject(data) {
		return nil, 0, errors.New("not a JSON object")
	}
	var probe struct {
		V json.RawMessage `json:"snapshot_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, 0, err
	}
	v := 0
	if len(probe.V) > 0 && string(probe.V) != "null" {
		if err := json.Unmarshal(probe.V, &v); err != nil {
			return nil, 0, fmt.Errorf("snapshot_version %s is not an integer", probe.V)
		}
	}
	switch {
	case v > Version:
		return nil, v, &FutureVersionError{Found: v, Supported: Version}
	case v < 0:
		return nil, v, fmt.Errorf("snapshot_version %d is negative", v)
	case v < Version:
		var err error
		if data, err = migrate(data, v); err != nil {
			return nil, v, err
		}
	}
	snap = Snapshot{}
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, v, err
	}
	return &snap, v, nil
}

func isObject(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// A migration rewrites the JSON document of one version into the next.
type migration func(doc map[string]any) error

// migrations[v] turns version v into v+1; every version below Version has
// one.
var migrations = [Version]migration{
	0: migrateV0,
	1: func(map[string]any) error { return nil }, // only the tails changed (StyledTails)
}

// migrate brings data from version v up to Version.
func migrate(data []byte, v int) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	for ; v < Version; v++ {
		if err := migrations[v](doc); err != nil {
			return nil, fmt.Errorf("migrate from version %d: %w", v, err)
		}
		doc["snapshot_version"] = v + 1
	}
	return json.Marshal(doc)
}

// migrateV0 upgrades a snapshot from before versioning: it had neither
// snapshot_version nor restore_state. A pane's restore_state follows its
// state; fields missing then are left to default empty.
func migrateV0(doc map[string]any) error {
	panes, _ := doc["panes"].([]any)
	for _, p := range panes {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if rs, _ := m["restore_state"].(string); rs != "" {
			continue
		}
		state, _ := m["state"].(string)
		m["restore_state"] = restoreFromState(state)
	}
	return nil
}

// restoreFromState is the restore state of a pane that had state when saved.
func restoreFromState(state string) string {
	if state == "exited" {
		return RestoreExited
	}
	return RestoreLive
}

func validRestoreState(s string) bool {
	switch s {
	case RestoreLive, RestoreRestored, RestoreResumable, RestoreExited:
		return true
	}
	return false
}

// repair drops or mends what does not hold together in snap and says what
// it did.
func repair(snap *Snapshot) []string {
	var warns []string
	warn := func(format string, a ...any) { warns = append(warns, fmt.Sprintf(format, a...)) }

	wsSeen := make(map[string]bool, len(snap.Workspaces))
	ws := snap.Workspaces[:0]
	for i, w := range snap.Workspaces {
		switch {
		case w.ID == "":
			warn("workspace #%d has no id: dropped", i)
		case wsSeen[w.ID]:
			warn("workspace %q appears twice: the second is dropped", w.ID)
		default:
			wsSeen[w.ID] = true
			ws = append(ws, w)
		}
	}
	snap.Workspaces = ws

	tabWS := make(map[string]string, len(snap.Tabs))
	tabs := snap.Tabs[:0]
	for i, t := range snap.Tabs {
		switch {
		case t.ID == "":
			warn("tab #%d has no id: dropped", i)
		case tabWS[t.ID] != "":
			warn("tab %q appears twice: the second is dropped", t.ID)
		case !wsSeen[t.Workspace]:
			warn("tab %q belongs to missing workspace %q: dropped", t.ID, t.Workspace)
		default:
			tabWS[t.ID] = t.Workspace
			tabs = append(tabs, t)
		}
	}
	snap.Tabs = tabs

	paneTab := make(map[string]string, len(snap.Panes))
	panes := snap.Panes[:0]
	for i, p := range snap.Panes {
		switch {
		case p.ID == "":
			warn("pane #%d has no id: dropped", i)
			continue
		case paneTab[p.ID] != "":
			warn("pane %q appears twice: the second is dropped", p.ID)
			continue
		case tabWS[p.Tab] == "":
			warn("pane %q belongs to missing tab %q: dropped", p.ID, p.Tab)
			continue
		}
		if w := tabWS[p.Tab]; p.Workspace != w {
			warn("pane %q names workspace %q but its tab %q is in %q: corrected", p.ID, p.Workspace, p.Tab, w)
			p.Workspace = w
		}
		if !validRestoreState(p.RestoreState) {
			rs := restoreFromState(p.State)
			warn("pane %q has restore_state %q: set to %s from its state", p.ID, p.RestoreState, rs)
			p.RestoreState = rs
		}
		paneTab[p.ID] = p.Tab
		panes = append(panes, p)
	}
	snap.Panes = panes

	for i := range snap.Workspaces {
		w := &snap.Workspaces[i]
		listed := make(map[string]bool, len(w.Tabs))
		var list []string
		for _, id := range w.Tabs {
			switch {
			case tabWS[id] != w.ID:
				warn("workspace %q lists tab %q that is not one of its tabs: removed", w.ID, id)
			case listed[id]:
				warn("workspace %q lists tab %q twice", w.ID, id)
			default:
				listed[id] = true
				list = append(list, id)
			}
		}
		for _, t := range snap.Tabs {
			if t.Workspace == w.ID && !listed[t.ID] {
				warn("workspace %q does not list its tab %q: appended", w.ID, t.ID)
				listed[t.ID] = true
				list = append(list, t.ID)
			}
		}
		w.Tabs = list
		if w.ActiveTab != "" && !listed[w.ActiveTab] {
			first := ""
			if len(list) > 0 {
				first = list[0]
			}
			warn("workspace %q has active tab %q that is not one of its tabs: set to %q", w.ID, w.ActiveTab, first)
			w.ActiveTab = first
		}
	}

	for i := range snap.Tabs {
		t := &snap.Tabs[i]
		leaves := make(map[string]bool)
		var first string
		var prune func(n *Layout) *Layout
		prune = func(n *Layout) *Layout {
			if n == nil {
				return nil
			}
			leaf := n.Kind == "pane" || n.Kind != "split" && n.First == nil && n.Second == nil
			if n.Kind != "pane" && n.Kind != "split" {
				kind := "split"
				if leaf {
					kind = "pane"
				}
				warn("tab %q: layout node of kind %q read as a %s", t.ID, n.Kind, kind)
			}
			if leaf {
				switch {
				case paneTab[n.Pane] != t.ID:
					warn("tab %q: layout leaf %q is not a pane of this tab: removed", t.ID, n.Pane)
					return nil
				case leaves[n.Pane]:
					warn("tab %q: pane %q appears twice in the layout: the second is removed", t.ID, n.Pane)
					return nil
				}
				leaves[n.Pane] = true
				if first == "" {
					first = n.Pane
				}
				return &Layout{Kind: "pane", Pane: n.Pane}
			}
			a, b := prune(n.First), prune(n.Second)
			if a == nil || b == nil {
				if a == nil {
					return b
				}
				return a
			}
			out := &Layout{Kind: "split", Axis: n.Axis, Ratio: n.Ratio, First: a, Second: b}
			if out.Axis != "cols" && out.Axis != "rows" {
				warn("tab %q: split with axis %q: set to cols", t.ID, out.Axis)
				out.Axis = "cols"
			}
			if !(out.Ratio > 0 && out.Ratio < 1) || math.IsNaN(out.Ratio) {
				warn("tab %q: split with ratio %v: set to 0.5", t.ID, out.Ratio)
				out.Ratio = 0.5
			}
			return out
		}
		t.Layout = prune(t.Layout)
		if t.ActivePane != "" && !leaves[t.ActivePane] {
			warn("tab %q has active pane %q that is not in its layout: set to %q", t.ID, t.ActivePane, first)
			t.ActivePane = first
		}
		var missing []string
		for _, p := range snap.Panes {
			if p.Tab == t.ID && !leaves[p.ID] {
				missing = append(missing, p.ID)
			}
		}
		if len(missing) > 0 {
			warn("tab %q: panes %s are in no layout position", t.ID, strings.Join(missing, ", "))
		}
	}
	return warns
}
