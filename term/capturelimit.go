package term

// fitLocked returns the end of the longest prefix of rows [start, stop)
// whose lines, as a capture reply sends them, are at most maxBytes long
// together (stop when maxBytes ≤ 0); t.mu is held. See lineCost.
func (t *Terminal) fitLocked(start, stop, h, oldest int64, maxBytes int) int64 {
	if maxBytes <= 0 {
		return stop
	}
	n := 0
	for r := start; r < stop; r++ {
		var cost int
		if r < h {
			row := t.hist.at(int(r - oldest))
			cost = lineCost(&row, t.cols)
		} else {
			row := t.screenRow(int(r-h), false)
			cost = lineCost(&row, t.cols)
		}
		if n += cost; n > maxBytes {
			return r
		}
	}
	return stop
}

// lineCost is what row r, padded to cols cells, takes in a JSON array of
// strings: its bytes with JSON's escapes (Go's encoding: 2 bytes for " and
// \, 6 for <, > and &, 6 for U+2028 and U+2029), its quotes and a comma.
func lineCost(r *storedRow, cols int) int {
	text, pad := r.text, cols-int(r.cells)
	if pad < 0 {
		text, pad = r.padded(cols), 0
	}
	n := len(text) + pad + 3
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\\':
			n++
		case '<', '>', '&':
			n += 5
		case 0xe2: // U+2028, U+2029: e2 80 a8/a9
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xa8 || text[i+2] == 0xa9) {
				n += 3
			}
		}
	}
	return n
}
