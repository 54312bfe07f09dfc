package agents

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
	"github.com/signaltty/signaltty/snapshot"
)

// MaxNotifications is how many notifications are kept (docs/agents.md,
// "Notifications").
const MaxNotifications = snapshot.MaxNotifications

// Limits of a notification's text, in characters.
const (
	MaxNotifyTitle = 200
	MaxNotifyBody  = 2000
)

// Notification is a short message from a pane (OSC 9, 99 and 777, hooks)
// or a client (docs/agents.md, "Notifications").
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

var severityAttention = map[string]string{"info": AttentionUnread, "warning": AttentionWarning, "error": AttentionError}

// SeverityAttention is the attention a notification of severity raises its
// pane to; false for a severity other than info, warning and error.
func SeverityAttention(severity string) (string, bool) {
	a, ok := severityAttention[severity]
	return a, ok
}

// NewNotification is a notification with its text cleaned (CleanText, to
// MaxNotifyTitle and MaxNotifyBody characters): an empty title becomes
// "signaltty", an empty severity info.
func NewNotification(id, title, body, severity, source string, at time.Time) Notification {
	if severity == "" {
		severity = "info"
	}
	title = CleanText(title, MaxNotifyTitle)
	if title == "" {
		title = "signaltty"
	}
	return Notification{ID: id, Title: title, Body: CleanText(body, MaxNotifyBody), Severity: severity, Source: source, CreatedAt: at}
}

// LastMessage is what n makes its pane's last message: its title and the
// first 300 characters of its body, "" for a notification without a body.
func (n *Notification) LastMessage() string {
	if n.Body == "" {
		return ""
	}
	body := n.Body
	if r := []rune(body); len(r) > 300 {
		body = string(r[:300]) + "…"
	}
	return n.Title + ": " + body
}

// NoteList is the kept notifications, oldest first, at most
// MaxNotifications. The caller's lock guards it; its methods return the
// events to publish instead of publishing them.
type NoteList []*Notification

// Add keeps n, dropping the oldest beyond MaxNotifications, and returns
// notification.created.
func (l *NoteList) Add(n Notification) events.NotificationCreated {
	*l = append(*l, &n)
	if len(*l) > MaxNotifications {
		*l = append(NoteList{}, (*l)[len(*l)-MaxNotifications:]...)
	}
	return events.NotificationCreated{Notification: n.ID, Pane: n.Pane, Severity: n.Severity, Source: n.Source}
}

// List returns copies of the kept notifications, oldest first: only unread
// ones when unread, only a pane's when pane is set; never nil.
func (l NoteList) List(pane string, unread bool) []Notification {
	out := []Notification{}
	for _, n := range l {
		if (pane != "" && n.Pane != pane) || (unread && !n.ReadAt.IsZero()) {
			continue
		}
		out = append(out, *n)
	}
	return out
}

// MarkRead marks notifications read at now: those of ids, or all of a
// pane's when pane is set, or every one when both are empty. It returns a
// notification.read for each that changed. Errors: not_found.notification
// (an unknown id; nothing is marked).
func (l NoteList) MarkRead(ids []string, pane string, now time.Time) ([]events.EventData, *errcode.Error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	if len(ids) > 0 {
		found := 0
		for _, n := range l {
			if want[n.ID] {
				found++
			}
		}
		if found != len(want) {
			for id := range want {
				ok := false
				for _, n := range l {
					ok = ok || n.ID == id
				}
				if !ok {
					return nil, errcode.NotFound("notification", id)
				}
			}
		}
	}
	var evs []events.EventData
	for _, n := range l {
		if !n.ReadAt.IsZero() || (len(ids) > 0 && !want[n.ID]) || (pane != "" && n.Pane != pane) {
			continue
		}
		n.ReadAt = now
		evs = append(evs, events.NotificationRead{Notification: n.ID})
	}
	return evs, nil
}

// CleanText removes escape sequences (CSI, OSC, DCS and the other string
// sequences, two-byte ESC sequences, their C1 forms) and the other control
// characters but "\n" and "\t", makes s valid UTF-8, cuts it to max
// characters and trims surrounding space.
func CleanText(s string, max int) string {
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
