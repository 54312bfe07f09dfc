package term

import (
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Emulators are made ahead of need and reused (docs/emulator-release.md):
// making one costs milliseconds (the library allocates and clears a 4 MiB
// parser buffer and two screens), which would otherwise be paid by the
// first output of every pane and of every released pane that is rebuilt.
const (
	poolReady = 2        // emulators kept ready by the filler
	poolMax   = 8        // emulators kept at most (ready plus given back)
	poolCols  = 80       // the size pooled emulators are made at
	poolRows  = 24       //
	probeRune = "\ufffd" // printed where a probe must see the pen (width 1, never remapped by a character set)
)

// vtHost is one emulator with its handlers and reply pump. The handlers act
// on the terminal the host serves when they run, so a host can move from
// one terminal to another: t is set while the terminal's lock is held and
// read only inside Write, under that lock.
type vtHost struct {
	e       *vt.Emulator
	t       *Terminal
	pump    *replyPump
	altUsed bool // the alternate screen was shown: its hidden scrollback may hold rows, so the host is not reused
}

// emuPool holds emulators ready for use: made by a filler goroutine that
// sleeps on a channel until one is taken (no timers), or given back by
// terminals that released theirs.
type emuPool struct {
	once sync.Once
	mu   sync.Mutex
	// making is held while an emulator is made by the filler or for a
	// terminal's first output (reserve(true), without the terminal's
	// lock): one is made at a time. A burst of
	// first outputs (a thousand idle panes, each given input) would
	// otherwise have as many goroutines making emulators at once, each
	// allocating the library's 4 MiB parser buffer, queueing every other
	// goroutine (requests too) behind them and paying the collector's
	// assists for each other (docs/scale.md, "The first output of many
	// panes").
	making sync.Mutex
	free   []*vtHost
	want   chan struct{}
	made   int // hosts made (for tests)
	// serialWaits counts reserve(true) calls waiting for making (for tests)
	serialWaits atomic.Int32
	off         bool // Memory.SetPool(false): made on demand, never reused
}

// newHost makes an emulator with our handlers and its reply pump.
func newHost() *vtHost {
	h := &vtHost{e: vt.NewEmulator(poolCols, poolRows)}
	shrinkParserData(h.e) // parserdata.go
	h.e.SetScrollbackSize(vtScrollback)
	h.e.SetCallbacks(vt.Callbacks{
		Bell: func() { h.t.emit(Event{Kind: EventBell}) },
		AltScreen: func(on bool) {
			h.altUsed = h.altUsed || on
			h.t.emit(Event{Kind: EventAltScreen, Bool: on})
		},
		EnableMode:  func(m ansi.Mode) { h.t.modeChanged(m, true) },
		DisableMode: func(m ansi.Mode) { h.t.modeChanged(m, false) },
	})
	registerHandlers(h.e, h)
	h.pump = startReplyPump(h.e)
	return h
}

// take returns a host sized cols×rows for t, ready or made now (by this
// goroutine, not in turn with the filler: a request that needs an emulator
// does not wait behind a burst of first outputs).
func (p *emuPool) take(t *Terminal, cols, rows int) *vtHost {
	h := p.reserve(false)
	h.attach(t, cols, rows)
	return h
}

// reserve returns a host serving no terminal, ready or made now; serial
// makes it in turn with the filler and other serial reserves (p.making).
// A host reserved and not attached goes back with unreserve.
func (p *emuPool) reserve(serial bool) *vtHost {
	p.once.Do(func() {
		p.want = make(chan struct{}, 1)
		go p.fill()
	})
	p.mu.Lock()
	var h *vtHost
	off := p.off
	if n := len(p.free); n > 0 && !off {
		h, p.free[n-1], p.free = p.free[n-1], nil, p.free[:n-1]
	}
	p.mu.Unlock()
	if !off {
		select {
		case p.want <- struct{}{}:
		default:
		}
	}
	if h == nil && serial {
		h = p.make(off)
	}
	if h == nil {
		h = newHost()
		p.mu.Lock()
		p.made++
		p.mu.Unlock()
	}
	return h
}

// unreserve takes back a host serving no terminal (one reserve gave and
// nobody used, or one give reset): kept when there is room, else closed.
func (p *emuPool) unreserve(h *vtHost) {
	p.mu.Lock()
	if len(p.free) < poolMax && !p.off {
		p.free = append(p.free, h)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	h.close()
}

// make returns a host made now, or one the filler made while this waited
// for p.making (unless off).
func (p *emuPool) make(off bool) *vtHost {
	p.serialWaits.Add(1)
	p.making.Lock()
	p.serialWaits.Add(-1)
	defer p.making.Unlock()
	p.mu.Lock()
	if n := len(p.free); n > 0 && !off {
		h := p.free[n-1]
		p.free[n-1], p.free = nil, p.free[:n-1]
		p.mu.Unlock()
		return h
	}
	p.mu.Unlock()
	h := newHost()
	p.mu.Lock()
	p.made++
	p.mu.Unlock()
	return h
}

// attach makes h serve t at cols×rows cells.
func (h *vtHost) attach(t *Terminal, cols, rows int) {
	h.t = t
	if cols != h.e.Width() || rows != h.e.Height() {
		h.e.Resize(cols, rows)
	}
	h.pump.setWriter(t.replies)
}

// takeHost removes h from the free hosts and reports whether it was there.
func (p *emuPool) takeHost(h *vtHost) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, f := range p.free {
		if f == h {
			p.free = slices.Delete(p.free, i, i+1) // clears the vacated slot
			return true
		}
	}
	return false
}

// fill keeps poolReady hosts ready; it runs only after a take.
func (p *emuPool) fill() {
	for range p.want {
		for p.fillOne() {
		}
	}
}

// fillOne makes one host ready unless poolReady are; it reports whether it
// made one.
func (p *emuPool) fillOne() bool {
	p.making.Lock()
	defer p.making.Unlock()
	p.mu.Lock()
	n := len(p.free)
	p.mu.Unlock()
	if n >= poolReady {
		return false
	}
	h := newHost()
	p.mu.Lock()
	p.made++
	p.free = append(p.free, h)
	p.mu.Unlock()
	return true
}

// give takes back a host its terminal no longer uses: reset to the state of
// a new emulator (resetHost) and kept when there is room, else its
// goroutines end and it is left to the collector.
func (p *emuPool) give(h *vtHost) {
	h.pump.setWriter(nil)
	h.t = &Terminal{} // the reset's mode changes and handlers act on a scratch terminal
	ok := !h.altUsed && resetHost(h)
	h.t = nil
	if !ok {
		h.close()
		return
	}
	p.unreserve(h) // now as a new one
}

// resetHost brings an emulator that never showed the alternate screen back
// to what vt.NewEmulator(poolCols, poolRows) is, as far as anything can
// observe through its API: CAN ends any sequence the parser is in, RIS
// resets the screens, cursors, saved cursors, margins, tab stops, modes,
// character sets and the pending wrap; the colours, the palette and the
// size are set back, and the scrollback is emptied. The handlers hold no
// state of their own (the terminal does). It reports false when the
// library panicked.
func resetHost(h *vtHost) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e := h.e
	_, _ = e.Write([]byte{ansi.CAN, ansi.ESC, 'c'})
	e.SetForegroundColor(nil)
	e.SetBackgroundColor(nil)
	e.SetCursorColor(nil)
	for i := 0; i < 256; i++ {
		e.SetIndexedColor(i, nil)
	}
	if e.Width() != poolCols || e.Height() != poolRows {
		e.Resize(poolCols, poolRows)
	}
	sb := e.Scrollback()
	clear(sb.Lines())
	sb.Clear()
	return true
}

// close ends the host's goroutines (Emulator.Close would race with the
// pump's Read).
func (h *vtHost) close() {
	if pw, ok := h.e.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
	h.pump.close()
}
