package snapshot

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Encoding snapshot.json (docs/scale.md): the document is the indented JSON
// of the Snapshot, but each element of its workspaces, tabs, panes and
// notifications is kept by id with the value it was made from, and made
// again only for an element that differs from it (Save of many idle panes
// encodes, and indents, only what changed plus the small server part). The
// bytes are those one json.Encoder (indent "  ", no HTML escaping) makes of
// the whole Snapshot.

// part is an element's kept encoding, indented as a member of a top-level
// array; gen is the document that last had it.
type part[T any] struct {
	v   T
	enc []byte
	gen uint64
}

// keptParts are the parts of the last document, by element id; they are
// updated in place, save after save.
type keptParts struct {
	gen           uint64
	workspaces    map[string]*part[Workspace]
	tabs          map[string]*part[Tab]
	panes         map[string]*part[Pane]
	notifications map[string]*part[Notification]
}

// partEncoder encodes one element at the indentation of a top-level
// array's members.
type partEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newPartEncoder() *partEncoder {
	pe := &partEncoder{}
	pe.enc = json.NewEncoder(&pe.buf)
	pe.enc.SetEscapeHTML(false)
	pe.enc.SetIndent("    ", "  ")
	return pe
}

// appendArray appends the members of a top-level array (which has some):
// "[", each element's kept part (made again when same says it differs),
// "\n  ]". kept is updated to the parts of items (made when nil) and
// returned.
func appendArray[T any](out []byte, items []T, kept map[string]*part[T], gen uint64, pe *partEncoder,
	id func(*T) string, same func(a, b *T) bool, clone func(T) T) ([]byte, map[string]*part[T], error) {
	if kept == nil {
		kept = make(map[string]*part[T], len(items))
	}
	seen := 0
	out = append(out, '[')
	for i := range items {
		v := &items[i]
		k := kept[id(v)]
		if k == nil || !same(&k.v, v) {
			pe.buf.Reset()
			if err := pe.enc.Encode(v); err != nil {
				return nil, kept, err
			}
			if k == nil {
				k = &part[T]{}
				kept[id(v)] = k
			}
			k.v, k.enc = clone(*v), bytes.Clone(bytes.TrimSuffix(pe.buf.Bytes(), []byte("\n")))
		}
		if k.gen != gen {
			k.gen = gen
			seen++
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(out, "\n    "...), k.enc...)
	}
	if len(kept) > seen { // some are gone
		for key, k := range kept {
			if k.gen != gen {
				delete(kept, key)
			}
		}
	}
	return append(out, "\n  ]"...), kept, nil
}

// spliceArray copies head up to the empty array of member name (written
// as `"name": []` at the top level) and the member name, then appends the
// array made by add; it returns the rest of head after the empty array.
func spliceArray(out, head []byte, name string, add func(out []byte) ([]byte, error)) ([]byte, []byte, bool, error) {
	marker := "\n  \"" + name + "\": []"
	before, after, ok := bytes.Cut(head, []byte(marker))
	if !ok {
		return out, head, false, nil
	}
	out = append(append(out, before...), marker[:len(marker)-2]...)
	out, err := add(out)
	return out, after, true, err
}

// encodeDoc encodes snap into s.enc, reusing the kept parts of unchanged
// elements and keeping the new ones; s.mu is held.
func (s *Store) encodeDoc(snap *Snapshot) ([]byte, error) {
	doc := *snap // the non-empty arrays are left out and spliced in below
	if len(doc.Workspaces) > 0 {
		doc.Workspaces = []Workspace{}
	}
	if len(doc.Tabs) > 0 {
		doc.Tabs = []Tab{}
	}
	if len(doc.Panes) > 0 {
		doc.Panes = []Pane{}
	}
	if len(doc.Notifications) > 0 {
		doc.Notifications = []Notification{}
	}
	enc := &s.enc
	enc.Reset()
	e := json.NewEncoder(enc)
	e.SetEscapeHTML(false) // keep "&&" in an argv readable
	e.SetIndent("", "  ")
	if err := e.Encode(&doc); err != nil {
		return nil, err
	}
	head := enc.Bytes()
	ps := &s.parts
	ps.gen++
	gen := ps.gen
	pe := newPartEncoder()
	out := s.doc[:0]
	var err error
	ok := true
	step := func(n int, name string, add func(out []byte) ([]byte, error)) {
		if err == nil && ok && n > 0 {
			out, head, ok, err = spliceArray(out, head, name, add)
		}
	}
	step(len(snap.Workspaces), "workspaces", func(out []byte) ([]byte, error) {
		var err error
		out, ps.workspaces, err = appendArray(out, snap.Workspaces, ps.workspaces, gen, pe,
			func(w *Workspace) string { return w.ID }, sameWorkspace, cloneWorkspace)
		return out, err
	})
	step(len(snap.Tabs), "tabs", func(out []byte) ([]byte, error) {
		var err error
		out, ps.tabs, err = appendArray(out, snap.Tabs, ps.tabs, gen, pe,
			func(t *Tab) string { return t.ID }, sameTab, cloneTab)
		return out, err
	})
	step(len(snap.Panes), "panes", func(out []byte) ([]byte, error) {
		var err error
		out, ps.panes, err = appendArray(out, snap.Panes, ps.panes, gen, pe,
			func(p *Pane) string { return p.ID }, samePane, clonePane)
		return out, err
	})
	step(len(snap.Notifications), "notifications", func(out []byte) ([]byte, error) {
		var err error
		out, ps.notifications, err = appendArray(out, snap.Notifications, ps.notifications, gen, pe,
			func(n *Notification) string { return n.ID }, sameNotification, cloneNotification)
		return out, err
	})
	// What was kept of an array that is now empty goes.
	if len(snap.Workspaces) == 0 {
		ps.workspaces = nil
	}
	if len(snap.Tabs) == 0 {
		ps.tabs = nil
	}
	if len(snap.Panes) == 0 {
		ps.panes = nil
	}
	if len(snap.Notifications) == 0 {
		ps.notifications = nil
	}
	if err != nil {
		return nil, err
	}
	if !ok { // cannot happen: every member is always there
		s.parts = keptParts{}
		enc.Reset()
		if err := e.Encode(snap); err != nil {
			return nil, err
		}
		return enc.Bytes(), nil
	}
	out = append(out, head...)
	s.doc = out
	return out, nil
}

// sameWorkspace, sameTab and sameNotification report whether a and b
// encode the same, as samePane does for panes (TestSameComparesEveryField).
func sameWorkspace(a, b *Workspace) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Handle == b.Handle && a.Cwd == b.Cwd &&
		slices.Equal(a.Tabs, b.Tabs) && (a.Tabs == nil) == (b.Tabs == nil) && a.ActiveTab == b.ActiveTab &&
		a.AutoResume == b.AutoResume && samePtr(a.Git, b.Git, sameGit) && sameTime(&a.CreatedAt, &b.CreatedAt)
}

func sameGit(a, b *Git) bool {
	return a.Root == b.Root && a.Branch == b.Branch && a.Detached == b.Detached && a.Commit == b.Commit &&
		samePtr(a.Dirty, b.Dirty, func(x, y *bool) bool { return *x == *y }) && a.Worktree == b.Worktree &&
		a.Repo == b.Repo && a.Missing == b.Missing
}

func sameTab(a, b *Tab) bool {
	return a.ID == b.ID && a.Workspace == b.Workspace && a.Title == b.Title && samePtr(a.Layout, b.Layout, sameLayout) &&
		a.ActivePane == b.ActivePane && sameTime(&a.CreatedAt, &b.CreatedAt) && a.Run == b.Run
}

// sameLayout compares ratios as numbers: a NaN never equals, so such a
// layout is encoded again (sanitized documents have none).
func sameLayout(a, b *Layout) bool {
	return a.Kind == b.Kind && a.Pane == b.Pane && a.Axis == b.Axis && a.Ratio == b.Ratio &&
		samePtr(a.First, b.First, sameLayout) && samePtr(a.Second, b.Second, sameLayout)
}

func sameNotification(a, b *Notification) bool {
	return a.ID == b.ID && a.Pane == b.Pane && a.Workspace == b.Workspace && a.Title == b.Title && a.Body == b.Body &&
		a.Severity == b.Severity && a.Source == b.Source && sameTime(&a.CreatedAt, &b.CreatedAt) &&
		samePtr(a.ReadAt, b.ReadAt, sameTime)
}

// cloneWorkspace, cloneTab and cloneNotification copy what their value
// refers to, as clonePane does.
func cloneWorkspace(w Workspace) Workspace {
	w.Tabs = slices.Clone(w.Tabs)
	if w.Git != nil {
		g := *w.Git
		if g.Dirty != nil {
			d := *g.Dirty
			g.Dirty = &d
		}
		w.Git = &g
	}
	return w
}

func cloneTab(t Tab) Tab {
	t.Layout = cloneLayout(t.Layout)
	return t
}

func cloneLayout(l *Layout) *Layout {
	if l == nil {
		return nil
	}
	c := *l
	c.First, c.Second = cloneLayout(l.First), cloneLayout(l.Second)
	return &c
}

func cloneNotification(n Notification) Notification {
	if n.ReadAt != nil {
		t := *n.ReadAt
		n.ReadAt = &t
	}
	return n
}

// samePane reports whether a and b encode the same (every field of Pane is
// compared; TestSamePaneComparesEveryField keeps it so).
func samePane(a, b *Pane) bool {
	return a.ID == b.ID && a.Workspace == b.Workspace && a.Tab == b.Tab && a.Title == b.Title && a.Cwd == b.Cwd &&
		slices.Equal(a.Argv, b.Argv) && (a.Env == nil) == (b.Env == nil) && maps.Equal(a.Env, b.Env) &&
		slices.Equal(a.EnvUnset, b.EnvUnset) && (a.EnvUnset == nil) == (b.EnvUnset == nil) && a.Cols == b.Cols && a.Rows == b.Rows && a.State == b.State && sameStatus(a.Status, b.Status) &&
		a.RestoreState == b.RestoreState && a.Lifecycle == b.Lifecycle && a.Attention == b.Attention &&
		a.LastMessage == b.LastMessage && sameAgent(a.Agent, b.Agent) && sameTime(&a.CreatedAt, &b.CreatedAt) &&
		samePtr(a.ExitedAt, b.ExitedAt, sameTime) && a.Epoch == b.Epoch && a.ShutdownSave == b.ShutdownSave &&
		a.HistoryRows == b.HistoryRows && slices.Equal(a.EnvLost, b.EnvLost) && (a.EnvLost == nil) == (b.EnvLost == nil)
}

func sameStatus(a, b *WaitStatus) bool {
	return samePtr(a, b, func(a, b *WaitStatus) bool {
		return samePtr(a.Code, b.Code, func(x, y *int) bool { return *x == *y }) && a.Signal == b.Signal && a.CoreDumped == b.CoreDumped
	})
}

func sameAgent(a, b *Agent) bool {
	return samePtr(a, b, func(a, b *Agent) bool {
		return a.Kind == b.Kind && a.SessionID == b.SessionID && slices.Equal(a.ResumeArgv, b.ResumeArgv) &&
			(a.ResumeArgv == nil) == (b.ResumeArgv == nil) && a.Model == b.Model &&
			(a.ConfigEnv == nil) == (b.ConfigEnv == nil) && maps.Equal(a.ConfigEnv, b.ConfigEnv) && a.ResumeSource == b.ResumeSource
	})
}

// sameTime: the same instant, location and monotonic-free encoding.
func sameTime(a, b *time.Time) bool { return a.Equal(*b) && a.Location() == b.Location() }

func samePtr[T any](a, b *T, same func(a, b *T) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return same(a, b)
}

// clonePane copies what p refers to, so that a caller changing its
// snapshot afterwards does not change the kept Pane.
func clonePane(p Pane) Pane {
	p.Argv = slices.Clone(p.Argv)
	p.Env = maps.Clone(p.Env)
	p.EnvUnset = slices.Clone(p.EnvUnset)
	p.EnvLost = slices.Clone(p.EnvLost)
	if p.Status != nil {
		st := *p.Status
		if st.Code != nil {
			c := *st.Code
			st.Code = &c
		}
		p.Status = &st
	}
	if p.Agent != nil {
		a := *p.Agent
		a.ResumeArgv = slices.Clone(a.ResumeArgv)
		a.ConfigEnv = maps.Clone(a.ConfigEnv)
		p.Agent = &a
	}
	if p.ExitedAt != nil {
		t := *p.ExitedAt
		p.ExitedAt = &t
	}
	return p
}
