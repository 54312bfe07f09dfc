package service

import (
	"time"

	"github.com/signaltty/signaltty/service/agents"
)

// Notifications (docs/agents.md, "Notifications"): short messages from
// panes (OSC 9, 99 and 777, hooks) or clients (Mux.Notify). Text is
// sanitized, the newest MaxNotifications are kept and persisted
// (agents.NoteList), and each raises its pane's attention by its
// severity.

// MaxNotifications is how many notifications are kept.
const MaxNotifications = agents.MaxNotifications

// Notification is a snapshot of a notification.
type Notification = agents.Notification

// Notifications is the notification verbs over the service's model and
// lock; Service.Notifications returns it.
type Notifications struct{ s *Service }

// Notifications returns the notification verbs.
func (s *Service) Notifications() Notifications { return Notifications{s} }

// NotifyRequest is the input of Notifications.Add.
type NotifyRequest struct {
	Pane, Workspace string
	Title, Body     string
	Severity        string // "" = info
}

// addLocked records a notification (agents.NewNotification) about p
// (nil: none) or workspace and raises p's attention; s.mu is held.
func (ns Notifications) addLocked(p *pane, workspace, title, body, severity, source string) Notification {
	s := ns.s
	n := agents.NewNotification(newID("notif"), title, body, severity, source, time.Now())
	n.Workspace = workspace
	if p != nil {
		n.Pane, n.Workspace = p.id, p.workspace
	}
	s.emitLocked(s.notes.Add(n))
	if p != nil {
		at, _ := agents.SeverityAttention(n.Severity)
		s.agentChangedLocked(p, p.agent.RaiseAttention(p.id, at))
	}
	return n
}

// Add records a notification from a client (Mux.Notify), about a pane
// (raising its attention by severity), a workspace, or nothing. Errors:
// invalid_params.severity, invalid_params.title (empty after cleaning),
// not_found.pane, not_found.workspace.
func (ns Notifications) Add(r NotifyRequest) (Notification, error) {
	s := ns.s
	if r.Severity == "" {
		r.Severity = "info"
	}
	if _, ok := agents.SeverityAttention(r.Severity); !ok {
		return Notification{}, invalid("severity", "unknown", "severity must be info, warning or error")
	}
	if agents.CleanText(r.Title, agents.MaxNotifyTitle) == "" && agents.CleanText(r.Body, agents.MaxNotifyBody) == "" {
		return Notification{}, invalid("title", "empty", "a notification needs a title or a body")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var p *pane
	ws := ""
	if r.Pane != "" {
		var err *Error
		if p, err = s.lookupPane(r.Pane); err != nil {
			return Notification{}, err
		}
		if r.Workspace != "" {
			w, err := s.lookupWorkspace(r.Workspace)
			if err != nil {
				return Notification{}, err
			}
			if w.id != p.workspace {
				return Notification{}, invalid("workspace", "mismatch", "pane %s is in workspace %s, not in %s: give the pane alone, or the pane's workspace", p.id, p.workspace, w.id)
			}
		}
	} else if r.Workspace != "" {
		w, err := s.lookupWorkspace(r.Workspace)
		if err != nil {
			return Notification{}, err
		}
		ws = w.id
	}
	return ns.addLocked(p, ws, r.Title, r.Body, r.Severity, "cli"), nil
}

// List returns the kept notifications, oldest first: only unread ones
// when unread, only a pane's when pane is set.
func (ns Notifications) List(pane string, unread bool) []Notification {
	s := ns.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notes.List(pane, unread)
}

// MarkRead marks notifications read: those of ids, or all of a pane's
// when pane is set, or every one when both are empty. It returns how many
// changed. Errors: not_found.notification (an unknown id; nothing is
// marked).
func (ns Notifications) MarkRead(ids []string, pane string) (int, error) {
	s := ns.s
	s.mu.Lock()
	defer s.mu.Unlock()
	evs, err := s.notes.MarkRead(ids, pane, time.Now())
	if err != nil {
		return 0, err
	}
	for _, e := range evs {
		s.emitLocked(e)
	}
	return len(evs), nil
}
