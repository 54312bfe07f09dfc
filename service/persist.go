package service

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/service/persist"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// Persistence follows docs/persistence.md: structural changes mark the
// state dirty and its persist.Saver writes at most once per SaveDebounce;
// explicit saves (Server.Save, shutdown, SIGTERM, logind) write at once.

// SaveDebounce is the least time between two debounced saves.
const SaveDebounce = persist.SaveDebounce

// tailRows is how many of a pane's last rows a save or a relaunch keeps.
const tailRows = persist.TailRows

// PersistStatus describes persistence for Server.GetStatus (persist.Status).
type PersistStatus = persist.Status

// RuntimeRestore describes the last Server.RestoreSnapshot of this daemon
// (persist.RuntimeRestore).
type RuntimeRestore = persist.RuntimeRestore

// Persistence is the saver of s's state: its saves, save intervals and
// status (persist.Saver).
func (s *Service) Persistence() *persist.Saver { return s.persist }

// newSaver returns the saver of s's state, guarded by s.mu.
func newSaver(s *Service) *persist.Saver {
	return persist.NewSaver(&s.mu, s.log, persist.Model{
		CaptureLocked: func(reason string, freeze bool, kept *persist.Exports) (*snapshot.Snapshot, map[string]*term.Terminal) {
			if freeze {
				for _, p := range s.panes {
					if p.state.holdsPTY() {
						p.shutdownSave = true
					}
				}
			}
			snap := s.exportLocked(reason, kept)
			terms := map[string]*term.Terminal{}
			for _, sp := range snap.Panes {
				terms[sp.ID] = s.panes[sp.ID].term
			}
			return snap, terms
		},
		ThawLocked: func() {
			for _, p := range s.panes {
				p.shutdownSave = false
			}
		},
		TerminalsLocked: func(yield func(*term.Terminal) bool) {
			for _, p := range s.panes {
				if p.term != nil && !yield(p.term) {
					return
				}
			}
		},
		Saved: func() { s.memory.NoteWork() }, // the export's garbage goes back to the system once the daemon is quiet (docs/limits.md)
	})
}

// CheckSaveInterval accepts 0 (off) or 1 s..24 h (persist.CheckSaveInterval).
func CheckSaveInterval(d time.Duration) error {
	if err := request.CheckSaveInterval(d); err != nil {
		return err
	}
	return nil
}

// DefaultSaveOutputInterval is the daemon's output save interval unless
// configured otherwise.
const DefaultSaveOutputInterval = persist.DefaultSaveOutputInterval

// CheckSaveOutputInterval accepts 0 (off) or 1 s..24 h
// (persist.CheckSaveOutputInterval).
func CheckSaveOutputInterval(d time.Duration) error {
	if err := request.CheckSaveOutputInterval(d); err != nil {
		return err
	}
	return nil
}

// ErrPersistenceOff is returned by Save when no state directory is in use.
var ErrPersistenceOff = persist.ErrOff

// exportLocked copies the state into a snapshot, reusing kept's export of
// the panes that did not change; s.mu is held.
func (s *Service) exportLocked(reason string, kept *persist.Exports) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{Server: snapshot.Server{Version: s.cfg.Version, Reason: reason},
		Workspaces: []snapshot.Workspace{}, Tabs: []snapshot.Tab{}, Panes: make([]snapshot.Pane, 0, len(s.panes)), Notifications: []snapshot.Notification{}}
	kept.Begin(len(s.panes))
	for _, wid := range s.wsOrder {
		w := s.workspaces[wid]
		snap.Workspaces = append(snap.Workspaces, snapshot.Workspace{ID: w.id, Name: w.name, Handle: w.handle, Cwd: w.cwd,
			Tabs: append([]string{}, w.tabs...), ActiveTab: w.activeTab, CreatedAt: w.createdAt, Git: exportGit(w.git), AutoResume: w.autoResume})
		for _, tid := range w.tabs {
			t := s.tabs[tid]
			snap.Tabs = append(snap.Tabs, snapshot.Tab{ID: t.id, Workspace: t.workspace, Title: t.title,
				Layout: exportLayout(t.layout), ActivePane: t.activePane, CreatedAt: t.createdAt, Run: t.run})
			for _, p := range s.tabPanes(t) {
				if p.rev == 0 {
					s.records.touch(p)
				}
				snap.Panes = append(snap.Panes, kept.Keep(p.id, p.rev, p.shutdownSave, func() snapshot.Pane { return exportPane(p) }))
			}
		}
	}
	kept.End()
	snap.Notifications = exportNotificationsLocked(s.notes)
	return snap
}

func exportLayout(n *node) *snapshot.Layout {
	switch {
	case n == nil:
		return nil
	case n.pane != "":
		return &snapshot.Layout{Kind: "pane", Pane: n.pane}
	}
	return &snapshot.Layout{Kind: "split", Axis: n.axis, Ratio: n.ratio, First: exportLayout(n.first), Second: exportLayout(n.second)}
}

func exportPane(p *pane) snapshot.Pane {
	sp := snapshot.Pane{ID: p.id, Workspace: p.workspace, Tab: p.tab, Title: p.title, Cwd: p.cwd,
		Argv: append([]string{}, p.argv...), Env: savedEnv(p), EnvUnset: slices.Clone(p.envUnset), EnvLost: lostEnv(p), Cols: p.cols, Rows: p.rows,
		RestoreState: p.restoreState(), CreatedAt: p.createdAt, ShutdownSave: p.shutdownSave, HistoryRows: p.historyRows}
	exportAgentLocked(p, &sp)
	st := p.shown()
	switch live, restoreLive := persist.SaveAs(st.hasProcess(), p.shutdownSave, st == stateRestored); {
	case restoreLive:
		sp.State, sp.RestoreState = StateLive, snapshot.RestoreLive
	case live:
		sp.State = StateLive // still never seen to exit: restored again as such
	default:
		sp.State = StateExited
		if p.status != nil {
			sp.Status = &snapshot.WaitStatus{Code: p.status.Code, Signal: p.status.Signal, CoreDumped: p.status.CoreDumped}
		}
		if !p.exitedAt.IsZero() {
			at := p.exitedAt
			sp.ExitedAt = &at
		}
	}
	return sp
}

// Restore rebuilds the state of a snapshot as tombstones: workspaces, tabs
// and layouts as saved, and every pane without a process, RESTORED (it was
// running), RESUMABLE (it also has an agent's official resume command) or
// EXITED, with its saved title, size and tail. It starts no process. Call
// it on an empty service before serving.
func (s *Service) Restore(snap *snapshot.Snapshot, tails map[string][]string, from string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.persist.SetRestoredLocked(from)
	s.restoreLocked(snap, tails)
}

// restoreLocked adds snap's workspaces, tabs and panes as tombstones with
// the rows in tails (by pane id); s.mu is held.
func (s *Service) restoreLocked(snap *snapshot.Snapshot, tails map[string][]string) {
	if snap == nil {
		return
	}
	for _, sw := range snap.Workspaces {
		w := &workspace{id: sw.ID, name: sw.Name, handle: sw.Handle, cwd: sw.Cwd, tabs: append([]string{}, sw.Tabs...),
			activeTab: sw.ActiveTab, createdAt: sw.CreatedAt, git: importGit(sw.Git), autoResume: sw.AutoResume}
		if w.handle == "" {
			w.handle = s.uniqueHandle(slug(w.name))
		}
		s.workspaces[w.id] = w
		s.wsOrder = append(s.wsOrder, w.id)
	}
	for _, st := range snap.Tabs {
		s.tabs[st.ID] = &tab{id: st.ID, workspace: st.Workspace, title: st.Title, layout: importLayout(st.Layout),
			activePane: st.ActivePane, createdAt: st.CreatedAt, run: st.Run}
	}
	for _, sp := range snap.Panes {
		p := &pane{id: sp.ID, workspace: sp.Workspace, tab: sp.Tab, title: sp.Title, argv: sp.Argv, cwd: sp.Cwd,
			env: map[string]string{}, cols: min(max(sp.Cols, MinSize), MaxSize), rows: min(max(sp.Rows, MinSize), MaxSize),
			createdAt: sp.CreatedAt}
		for k, v := range sp.Env {
			p.env[k] = v
		}
		p.envUnset = restoredUnset(sp.EnvUnset)
		// The depth it was spawned with, kept by relaunch and resume; a file
		// without one gives it the daemon's setting now (docs/persistence.md).
		p.historyRows = sp.HistoryRows
		if CheckHistoryRows(p.historyRows) != nil {
			p.historyRows = s.settings.historyRowsLocked()
		}
		p.envLost = restoredUnset(sp.EnvLost)
		importAgent(p, &sp)
		switch persist.RestoreAs(sp.State == StateExited, p.agent.Resumable()) {
		case snapshot.RestoreExited:
			s.transitionLocked(p, change{to: stateExited})
			if sp.Status != nil {
				p.status = &WaitStatus{Code: sp.Status.Code, Signal: sp.Status.Signal, CoreDumped: sp.Status.CoreDumped}
			}
			if sp.ExitedAt != nil {
				p.exitedAt = *sp.ExitedAt
			}
		case snapshot.RestoreResumable:
			p.resumable = true
			s.transitionLocked(p, change{to: stateRestored})
		default:
			s.transitionLocked(p, change{to: stateRestored})
		}
		rows := tails[sp.ID]
		p.term = term.NewRestoredTerminal(p.cols, p.rows, rows, sp.Epoch+1) // numbering restarted
		p.restoredRows = int64(len(rows))
		s.panes[p.id] = p
	}
	s.notes = importNotifications(snap.Notifications)
}

func importLayout(l *snapshot.Layout) *node {
	switch {
	case l == nil:
		return nil
	case l.Kind == "pane":
		return &node{pane: l.Pane}
	}
	return &node{axis: l.Axis, ratio: l.Ratio, first: importLayout(l.First), second: importLayout(l.Second)}
}

// SnapshotEntry describes an older snapshot kept for recovery.
type SnapshotEntry = snapshot.Entry

// SnapshotRestore is the reply of Server.RestoreSnapshot.
type SnapshotRestore struct {
	Status Status
	// Kept is the name in snapshots/ of the copy of the state the restore
	// replaced ("" when that state was empty).
	Kept string
	// TailsKept is false when the restored copy had no tails: its panes
	// came back without rows (docs/persistence.md, "Snapshot list and
	// restore").
	TailsKept bool
}

// RestoreSnapshot replaces the current state with an older snapshot's, as
// tombstones with the rows the copy kept (Server.RestoreSnapshot). Only
// while no pane is live (conflict.pane_live otherwise): the current state
// is saved and copied into snapshots/ with its tails, then its workspaces,
// tabs and panes are removed, with their events. The restored state is
// saved at once. Disk I/O happens outside s.mu.
func (s *Service) RestoreSnapshot(name string) (SnapshotRestore, error) {
	store := s.persist.Store()
	if store == nil {
		return SnapshotRestore{}, newError(errcode.UnavailablePersistence, nil, "persistence is off")
	}
	cp, err := store.ReadCopy(name)
	if err != nil {
		return SnapshotRestore{}, newError(errcode.NotFoundSnapshot, map[string]any{"snapshot": name}, "cannot read snapshot %q: %v", name, err)
	}
	for _, w := range cp.Warnings {
		s.log.Warn("restoring a snapshot", "snapshot", name, "warning", w)
	}
	s.mu.Lock()
	err = s.livePanesLocked()
	s.mu.Unlock()
	if err != nil {
		return SnapshotRestore{}, err
	}
	// Keep the state being replaced: saved now (its tails too), and copied
	// into snapshots/ with them.
	if _, err := s.persist.Save("restore"); err != nil && !errors.Is(err, ErrPersistenceOff) {
		return SnapshotRestore{}, newError(errcode.CodeInternal, nil, "saving the current state before the restore failed: %v", err)
	}
	kept, err := store.Archive()
	if err != nil && kept == "" {
		return SnapshotRestore{}, newError(errcode.CodeInternal, nil, "keeping the current state before the restore failed: %v", err)
	}
	if err != nil {
		s.log.Warn("keeping the current state before the restore", "kept_current_as", kept, "err", err)
	}
	if kept != "" {
		kept = filepath.Base(kept) // a name RestoreSnapshot takes
	}
	s.log.Info("restoring a snapshot", "snapshot", name, "kept_current_as", kept, "tails_kept", cp.TailsKept)
	s.mu.Lock()
	if err := s.livePanesLocked(); err != nil { // checked again: the lock was released
		s.mu.Unlock()
		return SnapshotRestore{}, err
	}
	var removed []*pane
	for _, p := range s.panes {
		removed = append(removed, p)
	}
	for _, wid := range append([]string{}, s.wsOrder...) {
		w := s.workspaces[wid]
		for _, tid := range append([]string{}, w.tabs...) {
			s.deleteTabLocked(s.tabs[tid])
		}
		delete(s.workspaces, wid)
		s.emitLocked(events.WorkspaceRemoved{Workspace: wid})
	}
	s.wsOrder = nil
	s.restoreLocked(cp.Snapshot, cp.Tails)
	s.persist.SetRuntimeRestoreLocked(RuntimeRestore{From: rotateDirName + "/" + name, At: time.Now(), Kept: kept, TailsKept: cp.TailsKept})
	for _, wid := range s.wsOrder {
		w := s.workspaces[wid]
		s.emitLocked(events.WorkspaceCreated{Workspace: wid, Name: w.name, Handle: w.handle, Restored: true})
	}
	s.mu.Unlock()
	release(removed)
	s.git.Recover(context.Background())
	if _, err := s.persist.Save("restore"); err != nil {
		s.log.Error("saving the restored snapshot failed", "err", err)
	}
	return SnapshotRestore{Status: s.Status(), Kept: kept, TailsKept: cp.TailsKept}, nil
}

// rotateDirName is the state directory's folder of older snapshots.
const rotateDirName = "snapshots"
