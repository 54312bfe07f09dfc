package service

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/snapshot"
)

// Notifications (docs/agents.md, "Notifications"): short messages from
// panes (OSC 9, 99 and 777, hooks) or clients (Mux.Notify). Text is
// sanitized, the newest MaxNotifications are kept and persisted, and each
// raises its pane's attention by its severity.

// MaxNotifications is how many notifications are kept.
const MaxNotifications = snapshot.MaxNotifications

// Limits of a notification's text, in characters.
const (
	maxNotifyTitle = 200
	maxNotifyBody  = 2000
)

// Notification is a snapshot of a notification.
type Notification struct {
	ID        string
	Pane      string // "" when not about a pane
	Workspace string
	Title     string
	Body      string
	Severity  string // info, warning or error
	Source    string // osc9, osc99, osc777, bel, cli, hook:<agent>:<event>
	CreatedAt time.Time
	ReadAt    time.Time // zero while unread
}

// NotifyRequest is the input of Notify.
type NotifyRequest struct {
	Pane, Workspace string
	Title, Body     string
	Severity        string // "" = info
}

var severityAttention = map[string]string{"info": agents.AttentionUnread, "warning": agents.AttentionWarning, "error": agents.AttentionError}

// cleanText removes escape sequences (CSI, OSC, DCS and the other string
// sequences, two-byte ESC sequences, their C1 forms) and the other control
// characters but "\n" and "\t", makes s valid UTF-8 and cuts it to max
// characters.
func cleanText(s string, max int) string {
	var b strings.Builder
	n := 0
	const (
		text = iota
		esc  // after ESC
		csi  // in a control sequence, until its final byte
		str  // in a string (OSC, DCS, SOS, PM, APC), until BEL or ST
		strEsc
	)
	st := text
	for _, r := range s {
		switch st {
		case esc:
			switch r {
			case '[':
				st = csi
			case ']', 'P', 'X', '^', '_':
				st = str
			default:
				st = text // a two-byte sequence: dropped
			}
			continue
		case csi:
			if r >= 0x40 && r <= 0x7e {
				st = text
			}
			continue
		case str, strEsc:
			switch {
			case r == 0x07 || r == 0x9c || (st == strEsc && r == '\\'):
				st = text
			case r == 0x1b:
				st = strEsc
			default:
				st = str
			}
			continue
		}
		switch {
		case r == 0x1b:
			st = esc
			continue
		case r == 0x9b:
			st = csi
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			st = str
			continue
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0):
			continue
		}
		if n == max {
			break
		}
		if r == utf8.RuneError {
			r = '\uFFFD'
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// addNotification records a notification and raises its pane's attention;
// s.mu is held. An empty title becomes "signaltty".
func (s *Service) addNotification(p *pane, workspace, title, body, severity, source string) Notification {
	if severity == "" {
		severity = "info"
	}
	title = cleanText(title, maxNotifyTitle)
	if title == "" {
		title = "signaltty"
	}
	n := &Notification{ID: newID("notif"), Workspace: workspace, Title: title, Body: cleanText(body, maxNotifyBody),
		Severity: severity, Source: source, CreatedAt: time.Now()}
	if p != nil {
		n.Pane, n.Workspace = p.id, p.workspace
	}
	s.notes = append(s.notes, n)
	if len(s.notes) > MaxNotifications {
		s.notes = append([]*Notification{}, s.notes[len(s.notes)-MaxNotifications:]...)
	}
	s.emit(events.NotificationCreated{Notification: n.ID, Pane: n.Pane, Severity: severity, Source: source})
	if p != nil {
		s.raiseAttention(p, severityAttention[severity])
	}
	return *n
}

// Notify records a notification from a client (Mux.Notify), about a pane
// (raising its attention by severity), a workspace, or nothing. Errors:
// invalid_params.severity, invalid_params.title (empty after cleaning),
// not_found.pane, not_found.workspace.
func (s *Service) Notify(r NotifyRequest) (Notification, error) {
	if r.Severity == "" {
		r.Severity = "info"
	}
	if _, ok := severityAttention[r.Severity]; !ok {
		return Notification{}, invalid("severity", "unknown", "severity must be info, warning or error")
	}
	if cleanText(r.Title, maxNotifyTitle) == "" && cleanText(r.Body, maxNotifyBody) == "" {
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
	return s.addNotification(p, ws, r.Title, r.Body, r.Severity, "cli"), nil
}

// ListNotifications returns the kept notifications, oldest first: only
// unread ones when unread, only a pane's when pane is set.
func (s *Service) ListNotifications(pane string, unread bool) []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Notification{}
	for _, n := range s.notes {
		if (pane != "" && n.Pane != pane) || (unread && !n.ReadAt.IsZero()) {
			continue
		}
		out = append(out, *n)
	}
	return out
}

// MarkNotificationsRead marks notifications read: those of ids, or all of
// a pane's when pane is set, or every one when both are empty. It returns
// how many changed. Errors: not_found.notification (an unknown id; nothing
// is marked).
func (s *Service) MarkNotificationsRead(ids []string, pane string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	if len(ids) > 0 {
		found := 0
		for _, n := range s.notes {
			if want[n.ID] {
				found++
			}
		}
		if found != len(want) {
			for id := range want {
				ok := false
				for _, n := range s.notes {
					ok = ok || n.ID == id
				}
				if !ok {
					return 0, notFound("notification", id)
				}
			}
		}
	}
	now, changed := time.Now(), 0
	for _, n := range s.notes {
		if !n.ReadAt.IsZero() || (len(ids) > 0 && !want[n.ID]) || (pane != "" && n.Pane != pane) {
			continue
		}
		n.ReadAt = now
		changed++
		s.emit(events.NotificationRead{Notification: n.ID})
	}
	return changed, nil
}
