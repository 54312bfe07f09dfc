// Package term: TEMPORARY alias shim until the emulation package lands.
package term

import (
	"strings"

	"github.com/signaltty/signaltty/pty"
)

type Terminal = pty.Terminal
type Capture = pty.Capture
type CaptureRequest = pty.CaptureRequest
type Event = pty.Event
type EventKind = pty.EventKind
type RangeError = pty.RangeError

var ErrStaleEpoch = pty.ErrStaleEpoch

const (
	ScreenPrimary      = pty.ScreenPrimary
	ScreenAlternate    = pty.ScreenAlternate
	EventTitle         = pty.EventTitle
	EventCwd           = pty.EventCwd
	EventBell          = pty.EventBell
	EventCommandStart  = pty.EventCommandStart
	EventCommandFinish = pty.EventCommandFinish
	EventPromptStart   = pty.EventPromptStart
	EventProgramStatus = pty.EventProgramStatus
	EventAltScreen     = pty.EventAltScreen
)

func NewRestoredTerminal(cols, rows int, lines []string, epoch int64) *Terminal {
	return pty.NewRestoredTerminal(cols, rows, lines, epoch)
}

type Tail struct {
	Screen     string
	Epoch      int64
	Cols, Rows int
	Oldest     int64
	Start, End int64
	Lines      []string
	Bytes      int
}

func TailOf(t *Terminal, maxRows, maxBytes int) Tail {
	scr, err := t.Capture(CaptureRequest{})
	if err != nil {
		return Tail{}
	}
	out := Tail{Screen: scr.Screen, Epoch: scr.Epoch, Cols: scr.Cols, Rows: scr.Rows, Oldest: scr.Oldest, Lines: []string{}}
	end := scr.Oldest
	for i := len(scr.Lines) - 1; i >= 0; i-- {
		if strings.TrimRight(scr.Lines[i], " ") != "" {
			end = scr.First + int64(i) + 1
			break
		}
	}
	for hi := scr.First; end == scr.Oldest && hi > scr.Oldest; {
		lo := max(scr.Oldest, hi-256)
		c, err := t.Capture(CaptureRequest{Start: &lo, End: &hi})
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
		c, err := t.Capture(CaptureRequest{Start: &lo, End: &end})
		if err == nil {
			n := 0
			i := len(c.Lines)
			for i > 0 && n+len(c.Lines[i-1]) <= maxBytes {
				n += len(c.Lines[i-1])
				i--
			}
			out.Lines = c.Lines[i:]
			out.Start = lo + int64(i)
			out.Bytes = n
		}
	}
	return out
}
