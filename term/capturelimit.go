package term

// fitLocked returns the end of the longest prefix of rows [start, stop)
// whose lines, padded to the screen width as Capture returns them, are at
// most maxBytes long together (stop when maxBytes ≤ 0); t.mu is held.
// History rows are measured without being padded.
func (t *Terminal) fitLocked(start, stop, h, oldest int64, maxBytes int) int64 {
	if maxBytes <= 0 {
		return stop
	}
	n := 0
	for r := start; r < stop; r++ {
		var size int
		if r < h {
			size = t.hist.at(int(r - oldest)).paddedLen(t.cols)
		} else {
			row := t.screenRow(int(r-h), false)
			size = row.paddedLen(t.cols)
		}
		if n += size; n > maxBytes {
			return r
		}
	}
	return stop
}
