package term

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// UTF-8 before control functions (docs/rows.md, "UTF-8 and C1 controls").
// A pane's output is UTF-8, and a byte 0x80–0x9F is never a C1 control:
// inside a character it is part of it, on its own it is an ill-formed
// sequence. The library's state machine (x/ansi, shared by the emulator and
// our tracker) reads those bytes as 8-bit C1 controls in every state, so ✳
// (E2 9C B3) ended an OSC title at its 0x9C, and a lone 0x9B or 0x9D opened
// a CSI or OSC that swallowed the output after it.
// Two parts put that right:
//
//   - fixParserTable makes 0x80–0xFF data in the string states (OSC, DCS,
//     SOS, PM, APC), ignored inside ESC, CSI and DCS headers, and never a
//     control in the ground state: what tmux does;
//   - utf8Decoder stands in front of the parser and replaces every
//     ill-formed subsequence with U+FFFD, so the parser only ever meets
//     well-formed characters (its own UTF-8 collection takes as many bytes
//     as the first one announces, whatever they are).

func init() { fixParserTable(parser.Table) }

// fixParserTable rewrites the transitions of bytes 0x80–0xFF in tab (the
// library's package-level table, which every ansi.Parser consults) so that
// none of them is a C1 control. UTF-8 lead bytes in the ground state keep
// collecting a character. The table is process-wide: the library's Strip,
// StringWidth and Truncate read strings with the same rules in this
// process, which is what they should do with UTF-8 too.
func fixParserTable(tab parser.TransitionTable) {
	for b := 0x80; b <= 0xff; b++ {
		c := byte(b)
		if c < 0xc2 || c > 0xf4 { // never well-formed here: utf8Decoder replaced it
			tab.AddOne(c, parser.GroundState, parser.IgnoreAction, parser.GroundState)
		}
		for _, st := range []parser.State{
			parser.EscapeState, parser.EscapeIntermediateState,
			parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState,
			parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState,
		} {
			tab.AddOne(c, st, parser.IgnoreAction, st)
		}
		for _, st := range []parser.State{
			parser.OscStringState, parser.DcsStringState,
			parser.SosStringState, parser.PmStringState, parser.ApcStringState,
		} {
			tab.AddOne(c, st, parser.PutAction, st)
		}
	}
}

// replacement is U+FFFD, the character put in place of an ill-formed
// subsequence.
const replacement = "\uFFFD"

// utf8Decoder makes a byte stream cut anywhere well-formed UTF-8: each
// maximal ill-formed subsequence (Unicode §3.9, "U+FFFD Substitution of
// Maximal Subparts": a lone continuation or invalid byte, or the start of a
// character cut short by a byte that cannot continue it) becomes one
// U+FFFD, and a character still incomplete at the end of a write is held
// until the next.
type utf8Decoder struct {
	part [utf8.UTFMax]byte // the incomplete character held back
	n    int               // its length (0: none)
	buf  []byte            // scratch for rewritten output
}

// decode returns p made well-formed, with the character held from the last
// call in front; it returns p itself when nothing had to change. The result
// is valid until the next call.
func (d *utf8Decoder) decode(p []byte) []byte {
	if d.n == 0 {
		if utf8.Valid(p) {
			return p
		}
		// Most often only the last character is cut.
		if k := lastRuneStart(p); utf8.Valid(p[:k]) && validPrefix(p[k:]) {
			d.n = copy(d.part[:], p[k:])
			return p[:k]
		}
	}
	out := d.buf[:0]
	if d.n > 0 {
		var used int
		out, used = d.complete(out, p)
		if d.n > 0 { // still incomplete: all of p went into it
			return out
		}
		p = p[used:]
	}
	out = d.appendWellFormed(out, p)
	d.buf = out
	return out
}

// complete continues the held character with the bytes of p that can, and
// appends it (or U+FFFD when a byte of p cannot continue it) to out. It
// returns out and how many bytes of p it took; d.n stays set when p ended
// before the character did.
func (d *utf8Decoder) complete(out, p []byte) ([]byte, int) {
	size, lo, hi := leadByte(d.part[0])
	if d.n > 1 {
		lo, hi = 0x80, 0xbf
	}
	i := 0
	for d.n < size && i < len(p) && p[i] >= lo && p[i] <= hi {
		d.part[d.n] = p[i]
		d.n++
		i++
		lo, hi = 0x80, 0xbf
	}
	switch {
	case d.n == size:
		out = append(out, d.part[:size]...)
	case i == len(p):
		return out, i
	default:
		out = append(out, replacement...)
	}
	d.n = 0
	return out, i
}

// appendWellFormed appends q to out with ill-formed subsequences replaced;
// a valid prefix of a character at the end of q is held in d instead.
func (d *utf8Decoder) appendWellFormed(out, q []byte) []byte {
	i := 0
	for i < len(q) {
		c := q[i]
		if c < utf8.RuneSelf {
			j := i + 1
			for j < len(q) && q[j] < utf8.RuneSelf {
				j++
			}
			out = append(out, q[i:j]...)
			i = j
			continue
		}
		size, lo, hi := leadByte(c)
		if size == 0 {
			out = append(out, replacement...)
			i++
			continue
		}
		j := i + 1
		for k := 1; k < size && j < len(q) && q[j] >= lo && q[j] <= hi; k++ {
			j++
			lo, hi = 0x80, 0xbf
		}
		switch {
		case j-i == size:
			out = append(out, q[i:j]...)
		case j == len(q):
			d.n = copy(d.part[:], q[i:])
			return out
		default:
			out = append(out, replacement...)
		}
		i = j
	}
	return out
}

// leadByte returns the length of the character lead byte c starts and the
// range its second byte must be in (Unicode Table 3-7, "Well-Formed UTF-8
// Byte Sequences"); size 0: c starts none.
func leadByte(c byte) (size int, lo, hi byte) {
	switch {
	case c >= 0xc2 && c <= 0xdf:
		return 2, 0x80, 0xbf
	case c == 0xe0:
		return 3, 0xa0, 0xbf
	case c == 0xed:
		return 3, 0x80, 0x9f
	case c >= 0xe1 && c <= 0xef:
		return 3, 0x80, 0xbf
	case c == 0xf0:
		return 4, 0x90, 0xbf
	case c >= 0xf1 && c <= 0xf3:
		return 4, 0x80, 0xbf
	case c == 0xf4:
		return 4, 0x80, 0x8f
	}
	return 0, 0, 0
}

// validPrefix reports whether b is the start of a well-formed character,
// short of its last byte.
func validPrefix(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	size, lo, hi := leadByte(b[0])
	if size <= len(b) {
		return false
	}
	for _, c := range b[1:] {
		if c < lo || c > hi {
			return false
		}
		lo, hi = 0x80, 0xbf
	}
	return true
}
