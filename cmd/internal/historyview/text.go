package historyview

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// seqEnd returns the end of the escape sequence that starts at s[i] (an
// ESC): a CSI (ESC [ … final byte) or an OSC (ESC ] … BEL or ESC \), the
// two kinds a row with escapes has (docs/rows.md, "Escapes").
func seqEnd(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
	case ']':
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
	default:
		return i + 2
	}
	return len(s)
}

// Plain is a row's text without its escape sequences.
func Plain(line string) string {
	if !strings.Contains(line, "\x1b") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == 0x1b {
			i = seqEnd(line, i)
			continue
		}
		b.WriteByte(line[i])
		i++
	}
	return b.String()
}

// Highlight returns line with every match of re in its text (Plain,
// without trailing spaces: a row is padded to the pane's width) in
// reverse video, its own colours kept: reverse is set again after each of
// the line's sequences inside a match, since one may reset it.
func Highlight(line string, re *regexp.Regexp) string {
	return highlight(line, re.FindAllStringIndex(strings.TrimRight(Plain(line), " "), -1))
}

// cells is the byte span [start, end) of text's cells c0 to c1 (inclusive,
// each rune a cell), clamped to the text.
func cells(text string, c0, c1 int) []int {
	start, end, n := len(text), len(text), 0
	for i := range text {
		if n == c0 {
			start = i
		}
		if n == c1+1 {
			end = i
			break
		}
		n++
	}
	return []int{min(start, end), end}
}

// highlight returns line with the byte spans of its text (Plain) in
// reverse video, its own colours kept.
func highlight(line string, spans [][]int) string {
	text := Plain(line)
	if len(spans) == 0 {
		return line
	}
	mark := make([]bool, len(text))
	for _, sp := range spans {
		for j := sp[0]; j < sp[1]; j++ {
			mark[j] = true
		}
	}
	var b strings.Builder
	p, in := 0, false // offset in the text; inside a match
	for i := 0; i < len(line); {
		if line[i] == 0x1b {
			j := seqEnd(line, i)
			b.WriteString(line[i:j])
			if in {
				b.WriteString("\x1b[7m")
			}
			i = j
			continue
		}
		if mark[p] != in {
			in = mark[p]
			if in {
				b.WriteString("\x1b[7m")
			} else {
				b.WriteString("\x1b[27m")
			}
		}
		b.WriteByte(line[i])
		i++
		p++
	}
	if in {
		b.WriteString("\x1b[27m")
	}
	return b.String()
}

// cut ends line after width characters of text (each counted as one
// cell), its sequences kept.
func cut(line string, width int) string {
	n := 0
	for i := 0; i < len(line); {
		if line[i] == 0x1b {
			i = seqEnd(line, i)
			continue
		}
		if n == width {
			return line[:i]
		}
		_, sz := utf8.DecodeRuneInString(line[i:])
		i += sz
		n++
	}
	return line
}
