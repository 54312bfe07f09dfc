package term

import "github.com/signaltty/signaltty/term/rowstore"

// fitLocked returns the end of the longest prefix of rows [start, stop)
// whose lines, as a capture reply sends them (trimmed, with escapes, as req
// asks), are at most req.MaxBytes long together (stop when MaxBytes ≤ 0);
// t.mu is held. See lineCost.
func (t *Terminal) fitLocked(start, stop, h, oldest int64, req CaptureRequest) int64 {
	if req.MaxBytes <= 0 {
		return stop
	}
	n := 0
	for r := start; r < stop; r++ {
		row := t.rowLocked(r, h, oldest, req.Escapes)
		var cost int
		switch {
		case req.Escapes || req.Trim:
			cost = stringCost(row.Line(t.cols, req.Trim, req.Escapes))
		default:
			cost = lineCost(&row, t.cols)
		}
		if n += cost; n > req.MaxBytes {
			return r
		}
	}
	return stop
}

// lineCost is what row r, padded to cols cells, takes in a JSON array of
// strings: its bytes with JSON's escapes (Go's encoding: 2 bytes for " and
// \, 6 for <, > and &, 6 for U+2028 and U+2029), its quotes and a comma.
func lineCost(r *rowstore.Row, cols int) int {
	text, pad := r.Text, cols-int(r.Cells)
	if pad < 0 {
		text, pad = r.Padded(cols), 0
	}
	return stringCost(text) + pad
}

// stringCost is what s takes in a JSON array of strings, as lineCost
// counts it; control characters (ESC of an escape sequence) take six bytes
// (\u001b).
func stringCost(s string) int {
	n := len(s) + 3
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			n++
		case c == '<' || c == '>' || c == '&' || c < 0x20:
			n += 5
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			n += 3
		}
	}
	return n
}
