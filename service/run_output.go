package service

import (
	"strings"

	"github.com/signaltty/signaltty/term"
)

// runOutput captures a finished pane's output tail (RFC §4): rows [start,
// end) where end is one past the last row with a non-space cell (oldest if
// none) and start the smallest row ≥ oldest keeping at most maxRows rows and
// maxBytes bytes of line text; rows are whole or left out. offset is the
// bytes of output the pane produced.
func runOutput(t *term.Terminal, offset int64, maxRows, maxBytes int) *RunOutput {
	scr, err := t.Capture(term.CaptureRequest{})
	if err != nil {
		return nil
	}
	out := &RunOutput{Screen: scr.Screen, Epoch: scr.Epoch, Offset: offset, Cols: scr.Cols, Rows: scr.Rows,
		Oldest: scr.Oldest, Lines: []string{}}
	// Find end: the last non-blank row, on the screen first, then in history.
	end := scr.Oldest
	for i := len(scr.Lines) - 1; i >= 0; i-- {
		if strings.TrimRight(scr.Lines[i], " ") != "" {
			end = scr.First + int64(i) + 1
			break
		}
	}
	for hi := scr.First; end == scr.Oldest && hi > scr.Oldest; {
		lo := max(scr.Oldest, hi-256)
		c, err := t.Capture(term.CaptureRequest{Start: &lo, End: &hi})
		if err != nil {
			break
		}
		for i := len(c.Lines) - 1; i >= 0; i-- {
			if strings.TrimRight(c.Lines[i], " ") != "" {
				end = lo + int64(i) + 1
				break
			}
		}
		hi = lo
	}
	out.End, out.Start = end, end
	if maxRows > 0 && maxBytes > 0 && end > scr.Oldest {
		lo := max(scr.Oldest, end-int64(maxRows))
		c, err := t.Capture(term.CaptureRequest{Start: &lo, End: &end})
		if err == nil {
			n := 0
			i := len(c.Lines)
			for i > 0 && n+len(c.Lines[i-1]) <= maxBytes {
				n += len(c.Lines[i-1])
				i--
			}
			out.Lines = c.Lines[i:]
			out.Start = lo + int64(i)
			out.bytes = n
		}
	}
	out.Complete = out.Epoch == 0 && out.Oldest == 0 && out.Start == 0
	return out
}
