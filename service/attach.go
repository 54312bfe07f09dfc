package service

import (
	"context"
	"time"

	"github.com/signaltty/signaltty/term"
)

// minFrameInterval spaces an attached client's frames: output arriving
// faster is drawn together in the next frame, so a flood of output costs a
// bounded number of screen copies per client.
const minFrameInterval = 10 * time.Millisecond

// Why an attach stream ends (AttachFrame.End).
const (
	AttachExited   = "exited"   // the pane's process exited (or had exited before)
	AttachRestored = "restored" // the pane is a tombstone restored after a restart, without a process
	AttachRemoved  = "removed"  // the pane was removed
)

// AttachFrame is one message of an attached client's stream
// (docs/attach.md). Data is a frame (term.Renderer): bytes that take a
// terminal of the pane's size from the previous frame's screen to the
// current one, for a terminal of Cols×Rows cells (a frame after the size
// changed redraws everything); Pane is set in the first message and the last; End is set
// in the last only (AttachExited, AttachRestored, AttachRemoved).
type AttachFrame struct {
	Data       []byte
	Cols, Rows int // the size of the screen Data draws
	Pane       *Pane
	End        string
}

// AttachPane streams a pane's screen to send (Mux.AttachPane;
// docs/attach.md): first the whole screen, then a frame after output,
// until ctx ends, the process the pane had at the start exits, or the pane
// is removed; a pane without a process gets its screen and the end at
// once. Frames are never queued: while send blocks (a client that does not
// read), changes pile up in the screen itself, and the next frame takes
// the client from what it was last sent to the screen as it is then, so
// the pane never waits for a client and a slow client costs no more memory
// than a fast one. termName is the client terminal's $TERM. send's error
// ends the stream and is returned. Errors: not_found.pane.
func (s *Service) AttachPane(ctx context.Context, id, termName string, send func(AttachFrame) error) error {
	s.mu.Lock()
	p, err := s.lookupPane(id)
	var t *term.Terminal
	var snap Pane
	var end string
	if err == nil {
		t, snap, end = p.term, p.snapshot(), attachEndLocked(p)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if t == nil { // a new pane whose first start is not committed: nothing shown yet
		return notFound("pane", id)
	}
	changed, stop := t.Watch()
	defer stop()
	s.attached(id)
	r := term.NewRenderer(termName)
	if err := send(frame(t, r, AttachFrame{Pane: &snap, End: end})); err != nil || end != "" {
		return err
	}
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
		if wait := minFrameInterval - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		s.mu.Lock()
		cur, lerr := s.lookupPane(id)
		end = AttachRemoved
		if lerr == nil && cur == p {
			snap, end = p.snapshot(), attachEndLocked(p)
			if end == "" && p.term != t { // relaunched since: the process attached to is gone
				end = AttachExited
			}
		}
		s.mu.Unlock()
		if end == AttachRemoved {
			return send(AttachFrame{End: end}) // nothing to draw: the pane is gone
		}
		f := frame(t, r, AttachFrame{})
		last = time.Now()
		if end != "" {
			f.Pane, f.End = &snap, end
			return send(f)
		}
		if len(f.Data) > 0 {
			if err := send(f); err != nil {
				return err
			}
		}
	}
}

// frame fills f with t's next frame and its size.
func frame(t *term.Terminal, r *term.Renderer, f AttachFrame) AttachFrame {
	f.Data = t.Frame(r)
	f.Cols, f.Rows = r.Size()
	return f
}

// attachEndLocked is why a stream for p ends now ("" while p has a process); s.mu is held.
func attachEndLocked(p *pane) string {
	switch {
	case p.state.hasProcess():
		return ""
	case p.state == stateRestored:
		return AttachRestored
	}
	return AttachExited
}

// attached is called when a client attaches to a pane: an attached human
// has seen it, so its attention (an agent waiting for them, a bell) is
// cleared (docs/agents.md, "Attention"). A read-only client clears it too:
// it is a person watching.
func (s *Service) attached(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, err := s.lookupPane(id); err == nil {
		s.agentChangedLocked(p, p.agent.ClearAttention(p.id, "attach"))
	}
}
