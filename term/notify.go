package term

import (
	"strings"

	"github.com/charmbracelet/x/vt"
)

// Desktop notifications a program asks for with an OSC sequence
// (docs/agents.md, "Notifications"): they are reported as EventNotify with
// the title in Text and the body in Body, sanitized like a title, and
// never shown on the screen.
//   - OSC 9 ; body (iTerm2). ConEmu's numbered forms ("9;4;…" progress and
//     the like) are not notifications and are ignored.
//   - OSC 777 ; notify ; title ; body (rxvt-unicode, VTE).
//   - OSC 99 ; metadata ; payload (kitty): metadata "p=title" or "p=body"
//     says what the payload is, "d=0" that more chunks of notification
//     "i=<id>" follow; it is reported when the last chunk (d=1, the
//     default) arrives. Base64 payloads ("e=1") are not decoded.

// maxPending bounds the kitty notifications being assembled.
const maxPending = 16

// kittyNote is an OSC 99 notification being assembled.
type kittyNote struct{ title, body string }

// registerNotifyHandlers installs the notification handlers; they act on
// the terminal h serves when they run (the emulator may be pooled and serve
// another terminal later).
func registerNotifyHandlers(e *vt.Emulator, h *vtHost) {
	e.RegisterOscHandler(9, func(data []byte) bool {
		t := h.t
		p, ok := oscPayload(data)
		if !ok || len(p) == 0 || isConEmuCode(string(p)) {
			return true
		}
		t.emit(Event{Kind: EventNotify, Body: sanitizeTitle(p), Code: oscNumber(9)})
		return true
	})
	e.RegisterOscHandler(777, func(data []byte) bool {
		t := h.t
		p, _ := oscPayload(data)
		f := strings.SplitN(string(p), ";", 3)
		if len(f) < 2 || f[0] != "notify" {
			return true
		}
		ev := Event{Kind: EventNotify, Text: sanitizeTitle([]byte(f[1])), Code: oscNumber(777)}
		if len(f) == 3 {
			ev.Body = sanitizeTitle([]byte(f[2]))
		}
		t.emit(ev)
		return true
	})
	e.RegisterOscHandler(99, func(data []byte) bool {
		t := h.t
		p, _ := oscPayload(data)
		meta, payload, ok := strings.Cut(string(p), ";")
		if !ok {
			return true
		}
		id, part, done, b64 := "", "title", true, false
		for _, kv := range strings.Split(meta, ":") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "i":
				id = v
			case "p":
				part = v
			case "d":
				done = v != "0"
			case "e":
				b64 = v == "1"
			}
		}
		if b64 || (part != "title" && part != "body") {
			return true
		}
		if t.kitty == nil {
			t.kitty = map[string]*kittyNote{}
		}
		n := t.kitty[id]
		if n == nil {
			if len(t.kitty) >= maxPending {
				clear(t.kitty)
			}
			n = &kittyNote{}
			t.kitty[id] = n
		}
		if part == "title" {
			n.title += payload
		} else {
			n.body += payload
		}
		if done {
			delete(t.kitty, id)
			t.emit(Event{Kind: EventNotify, Text: sanitizeTitle([]byte(n.title)), Body: sanitizeTitle([]byte(n.body)), Code: oscNumber(99)})
		}
		return true
	})
}

// isConEmuCode reports whether an OSC 9 payload is one of ConEmu's numbered
// commands ("4;1;50", "9;…") rather than a message.
func isConEmuCode(p string) bool {
	head, _, _ := strings.Cut(p, ";")
	if head == "" {
		return false
	}
	for _, r := range head {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func oscNumber(n int) *int { return &n }
