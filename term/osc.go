package term

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxTitleBytes caps a title (after control characters were removed).
const maxTitleBytes = 1024

// maxCwdBytes caps the URL of an OSC 7 report.
const maxCwdBytes = 4096

// The emulator's own OSC 0/1/2/7 handlers split the payload on every ';' and
// drop titles and URLs that contain one; these replace them (they are
// registered later, so they run first, and they never fall through).

// oscPayload returns what follows the first ';' of an OSC payload ("2;a;b" →
// "a;b"), and whether there was one.
func oscPayload(data []byte) ([]byte, bool) {
	i := bytes.IndexByte(data, ';')
	if i < 0 {
		return nil, false
	}
	return data[i+1:], true
}

// oscTitle handles OSC 0 and 2 (OSC 1, the icon name, is swallowed
// elsewhere). It runs inside emu.Write, with t.mu held.
func (t *Terminal) oscTitle(data []byte) bool {
	p, ok := oscPayload(data)
	if !ok {
		return true
	}
	title := sanitizeTitle(p)
	t.title = title
	t.emit(Event{Kind: EventTitle, Text: title})
	return true
}

// sanitizeTitle drops control characters (C0, DEL, C1), makes the text valid
// UTF-8 and caps it at maxTitleBytes on a character boundary.
func sanitizeTitle(p []byte) string {
	var b strings.Builder
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		p = p[n:]
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxTitleBytes {
			break
		}
		b.WriteRune(r) // RuneError for invalid bytes
	}
	return b.String()
}

// oscCwd handles OSC 7 (file://host/path).
func (t *Terminal) oscCwd(data []byte) bool {
	p, ok := oscPayload(data)
	if !ok || len(p) > maxCwdBytes {
		return true
	}
	raw := string(p)
	path, ok := fileURLPath(raw)
	if !ok {
		return true
	}
	t.emit(Event{Kind: EventCwd, Text: path, URL: raw})
	return true
}

// fileURLPath returns the percent-decoded path of a file://host/path URL.
// The path is everything from the first '/' after the host, so ';', '?' and
// '#' are part of it.
func fileURLPath(raw string) (string, bool) {
	const scheme = "file://"
	if len(raw) < len(scheme) || !strings.EqualFold(raw[:len(scheme)], scheme) {
		return "", false
	}
	rest := raw[len(scheme):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	path := rest[i:]
	if dec, err := url.PathUnescape(path); err == nil {
		path = dec
	}
	if strings.IndexByte(path, 0) >= 0 || !utf8.ValidString(path) {
		return "", false
	}
	return path, true
}

// oscSemantic handles OSC 133 (shell integration marks).
func (t *Terminal) oscSemantic(data []byte) bool {
	p, ok := oscPayload(data)
	if !ok || len(p) == 0 {
		return true
	}
	fields := strings.Split(string(p), ";")
	switch fields[0] {
	case "A":
		t.emit(Event{Kind: EventPromptStart})
	case "C":
		t.emit(Event{Kind: EventCommandStart})
	case "D":
		ev := Event{Kind: EventCommandFinish}
		if len(fields) > 1 {
			if code, err := strconv.Atoi(fields[1]); err == nil {
				ev.Code = &code
			}
		}
		t.emit(ev)
	}
	return true
}

// oscProgramStatus handles OSC 7501 (program status, payload passed on).
func (t *Terminal) oscProgramStatus(data []byte) bool {
	p, _ := oscPayload(data)
	t.emit(Event{Kind: EventProgramStatus, Text: strings.ToValidUTF8(string(p), "\uFFFD")})
	return true
}
