package snapshot

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Encoding snapshot.json (docs/scale.md): the document is the indented JSON
// of the Snapshot, but each pane's part is kept by pane id with the Pane it
// was made from, and made again only for a pane that differs from it (Save
// of many idle panes encodes only those that changed). The bytes are those
// one json.Encoder (indent "  ", no HTML escaping) makes of the whole
// Snapshot.

// paneEnc is a pane's kept part of the document.
type paneEnc struct {
	p   Pane
	enc []byte
}

// emptyPanes is the panes member of a document encoded without panes.
const emptyPanes = "\n  \"panes\": [],\n"

// encodeDoc encodes snap into s.enc, reusing the kept parts of unchanged
// panes and keeping the new ones; s.mu is held.
func (s *Store) encodeDoc(snap *Snapshot) ([]byte, error) {
	doc := *snap
	if len(doc.Panes) > 0 {
		doc.Panes = []Pane{}
	}
	enc := &s.enc
	enc.Reset()
	e := json.NewEncoder(enc)
	e.SetEscapeHTML(false) // keep "&&" in an argv readable
	e.SetIndent("", "  ")
	if err := e.Encode(&doc); err != nil {
		return nil, err
	}
	if len(snap.Panes) == 0 {
		s.panes = nil
		return enc.Bytes(), nil
	}
	head, tail, ok := bytes.Cut(enc.Bytes(), []byte(emptyPanes))
	if !ok { // cannot happen: the member is always there
		enc.Reset()
		if err := e.Encode(snap); err != nil {
			return nil, err
		}
		return enc.Bytes(), nil
	}
	kept := make(map[string]paneEnc, len(snap.Panes))
	var pe bytes.Buffer
	pen := json.NewEncoder(&pe)
	pen.SetEscapeHTML(false)
	pen.SetIndent("    ", "  ")
	out := make([]byte, 0, len(head)+len(tail)+s.panesSize+64)
	out = append(append(out, head...), "\n  \"panes\": ["...)
	for i := range snap.Panes {
		p := &snap.Panes[i]
		k, ok := s.panes[p.ID]
		if !ok || !samePane(&k.p, p) {
			pe.Reset()
			if err := pen.Encode(p); err != nil {
				return nil, err
			}
			k = paneEnc{p: clonePane(*p), enc: bytes.Clone(bytes.TrimSuffix(pe.Bytes(), []byte("\n")))}
		}
		kept[p.ID] = k
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(out, "\n    "...), k.enc...)
	}
	out = append(out, "\n  ],\n"...)
	s.panesSize = len(out) - len(head)
	out = append(out, tail...)
	s.panes = kept
	enc.Reset()
	enc.Write(out)
	return enc.Bytes(), nil
}

// samePane reports whether a and b encode the same (every field of Pane is
// compared; TestSamePaneComparesEveryField keeps it so).
func samePane(a, b *Pane) bool {
	return a.ID == b.ID && a.Workspace == b.Workspace && a.Tab == b.Tab && a.Title == b.Title && a.Cwd == b.Cwd &&
		slices.Equal(a.Argv, b.Argv) && (a.Env == nil) == (b.Env == nil) && maps.Equal(a.Env, b.Env) &&
		a.Cols == b.Cols && a.Rows == b.Rows && a.State == b.State && sameStatus(a.Status, b.Status) &&
		a.RestoreState == b.RestoreState && a.Lifecycle == b.Lifecycle && a.Attention == b.Attention &&
		a.LastMessage == b.LastMessage && sameAgent(a.Agent, b.Agent) && sameTime(&a.CreatedAt, &b.CreatedAt) &&
		samePtr(a.ExitedAt, b.ExitedAt, sameTime) && a.Epoch == b.Epoch && a.ShutdownSave == b.ShutdownSave
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
