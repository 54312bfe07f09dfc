package main

import (
	"fmt"
	"strings"
)

// namedKeys are the keys pane send --key knows, named as tmux send-keys
// names them, with the bytes an xterm sends for them (cursor and function
// keys in normal, not application, mode).
var namedKeys = map[string]string{
	"Enter": "\r", "Tab": "\t", "BTab": "\x1b[Z", "BSpace": "\x7f", "Escape": "\x1b", "Space": " ",
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Home": "\x1b[H", "End": "\x1b[F",
	"IC": "\x1b[2~", "Insert": "\x1b[2~", "DC": "\x1b[3~", "Delete": "\x1b[3~",
	"PageUp": "\x1b[5~", "PgUp": "\x1b[5~", "PPage": "\x1b[5~",
	"PageDown": "\x1b[6~", "PgDn": "\x1b[6~", "NPage": "\x1b[6~",
	"F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS",
	"F5": "\x1b[15~", "F6": "\x1b[17~", "F7": "\x1b[18~", "F8": "\x1b[19~",
	"F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~", "F12": "\x1b[24~",
}

// keyBytes returns the bytes of a key named as tmux send-keys names it: a
// name of namedKeys, a single character, or either with the modifiers C-
// (control), M- (meta: ESC first) or S- (shift, for letters), e.g. "C-c",
// "M-x", "C-\", "Enter", "F1". Errors: an unknown name.
func keyBytes(name string) (string, error) {
	ctrl, meta, shift := false, false, false
	rest := name
	for len(rest) > 2 && rest[1] == '-' {
		switch rest[0] {
		case 'C', 'c':
			ctrl = true
		case 'M', 'm':
			meta = true
		case 'S', 's':
			shift = true
		default:
			return "", fmt.Errorf("unknown modifier %q in key %q", rest[:2], name)
		}
		rest = rest[2:]
	}
	if len(rest) == 2 && rest[0] == '^' { // ^X is C-X
		ctrl, rest = true, rest[1:]
	}
	var s string
	switch {
	case namedKeys[rest] != "":
		s = namedKeys[rest]
		if ctrl && rest == "Space" {
			s = "\x00"
		} else if ctrl || shift {
			if mod := modifiedKey(rest, ctrl, shift); mod != "" {
				s = mod
			} else {
				return "", fmt.Errorf("key %q cannot be sent with that modifier", name)
			}
		}
	case len([]rune(rest)) == 1:
		s = rest
		if shift {
			s = strings.ToUpper(s)
		}
		if ctrl {
			c, ok := controlOf(s)
			if !ok {
				return "", fmt.Errorf("key %q has no control character", name)
			}
			s = string(rune(c))
		}
	default:
		return "", fmt.Errorf("unknown key %q (names: Enter Tab BTab BSpace Escape Space Up Down Left Right Home End IC DC PageUp PageDown F1..F12, a character, with C- M- S-)", name)
	}
	if meta {
		s = "\x1b" + s
	}
	return s, nil
}

// controlOf is the control character of a single-character key.
func controlOf(s string) (byte, bool) {
	if len(s) != 1 {
		return 0, false
	}
	c := s[0]
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 1, true
	case c >= '@' && c <= '_': // @ A..Z [ \ ] ^ _
		return c - '@', true
	case c == '?':
		return 0x7f, true
	case c == ' ' || c == '2':
		return 0, true
	}
	return 0, false
}

// modifiedKey is the xterm encoding of a cursor or function key with
// control and/or shift (CSI 1;m X or CSI n;m ~), "" for keys without one.
func modifiedKey(name string, ctrl, shift bool) string {
	m := 1
	if shift {
		m++
	}
	if ctrl {
		m += 4
	}
	mod := fmt.Sprint(m)
	s := namedKeys[name]
	switch {
	case name == "Tab" && shift && !ctrl:
		return "\x1b[Z"
	case strings.HasPrefix(s, "\x1b[") && len(s) == 3: // CSI X
		return "\x1b[1;" + mod + s[2:]
	case strings.HasPrefix(s, "\x1bO") && len(s) == 3: // SS3 P..S
		return "\x1b[1;" + mod + s[2:]
	case strings.HasPrefix(s, "\x1b[") && strings.HasSuffix(s, "~"):
		return s[:len(s)-1] + ";" + mod + "~"
	}
	return ""
}
