package term

import (
	"io"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/charmbracelet/x/vt"
)

// tracker follows the parser state of the byte stream (with a parser of its
// own, the same state machine the emulator uses) and the state that decides
// how plain text prints: the character sets, single shifts and tab stops.
// Some are changed by controls the emulator offers no hook for (SS2, SS3,
// HTS).
type tracker struct {
	p           *ansi.Parser
	gl          int     // locking shift (ESC n, ESC o): the set GL uses
	gsingle     int     // pending single shift (2 or 3), 0 = none
	special     [4]bool // set maps ASCII characters (UK or DEC special graphics)
	sets        [4]byte // the final byte that designated each set (0: none since the start or RIS)
	tabsDefault bool    // tab stops are every 8 columns
	split       bool    // a CSI our emulator handlers may rewrite just ended
	rep         bool    // a REP just ended (it prints, like text)
}

func (tr *tracker) init() {
	// ansi.NewParser less its 64 KiB string buffer, which would be
	// allocated only to be replaced: string payloads are of no interest here.
	tr.p = new(ansi.Parser)
	tr.p.SetParamsSize(parser.MaxParamsSize)
	tr.p.SetDataSize(64)
	tr.tabsDefault = true
	tr.p.SetHandler(ansi.Handler{
		Print:     func(rune) { tr.gsingle = 0 },
		Execute:   tr.execute,
		HandleEsc: tr.esc,
		HandleCsi: tr.csi,
	})
}

func (tr *tracker) ground() bool { return tr.p.State() == parser.GroundState }

// charsetOK reports whether ASCII prints as itself.
func (tr *tracker) charsetOK() bool { return !tr.special[tr.gl] && tr.gsingle == 0 }

// execute mirrors the library's control handlers. SO and SI are not among
// them (its registration loop for them runs over the C1 range), so they
// change nothing.
func (tr *tracker) execute(b byte) {
	switch b {
	case ansi.SS2:
		tr.gsingle = 2
	case ansi.SS3:
		tr.gsingle = 3
	case ansi.HTS:
		tr.tabsDefault = false
	}
}

func (tr *tracker) esc(cmd ansi.Cmd) {
	switch inter, final := cmd.Intermediate(), cmd.Final(); {
	case inter >= '(' && inter <= '+':
		switch final {
		case 'A', '0':
			tr.special[inter-'('] = true
			tr.sets[inter-'('] = final
		case 'B':
			tr.special[inter-'('] = false
			tr.sets[inter-'('] = final
		}
	case inter == 0 && final == 'n':
		tr.gl = 2
	case inter == 0 && final == 'o':
		tr.gl = 3
	case inter == 0 && final == 'H':
		tr.tabsDefault = false
	case inter == 0 && final == 'c':
		tr.gl, tr.gsingle, tr.special, tr.sets, tr.tabsDefault = 0, 0, [4]bool{}, [4]byte{}, true
	}
}

func (tr *tracker) csi(cmd ansi.Cmd, params ansi.Params) {
	switch int(cmd) {
	case 'r', 's', 'X', 'I', 'Z':
		tr.split = true
	case 'b':
		// Split only when our handler clamps the count: REP prints into
		// the library's unfinished cluster, which a split would end.
		if n, _, _ := params.Param(0, 1); n > maxRepeat {
			tr.split = true
		} else {
			tr.rep = true
		}
	case 'g':
		tr.tabsDefault = false
	case ansi.Command('?', 0, 'W'):
		if len(params) == 1 && params[0] == 5 {
			tr.tabsDefault = true
		}
	}
}

// replyPump moves the emulator's replies (it writes them into an unbuffered
// pipe, and its Write blocks until they are read) to the replies writer of
// the terminal the emulator serves (none while pooled: they are dropped).
// Reading and writing are separate goroutines with a bounded queue between
// them, so a stuck replies writer cannot stall emulation.
type replyPump struct {
	mu     sync.Mutex
	cond   *sync.Cond
	q      []byte
	w      io.Writer
	gen    uint64 // counts setWriter calls: a reply queued for one writer never goes to the next
	closed bool
}

func startReplyPump(e *vt.Emulator) *replyPump {
	p := &replyPump{}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := e.Read(buf)
			if n > 0 {
				p.put(buf[:n])
			}
			if err != nil {
				p.close()
				return
			}
		}
	}()
	go func() {
		for {
			b, w, ok := p.take()
			if !ok {
				return
			}
			if w != nil {
				_, _ = w.Write(b)
			}
		}
	}()
	return p
}

// setWriter sends later replies to w (nil: dropped) and drops those queued.
func (p *replyPump) setWriter(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w, p.q = w, nil
	p.gen++
}

func (p *replyPump) put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.w == nil || len(p.q)+len(b) > maxReplyBacklog {
		return
	}
	p.q = append(p.q, b...)
	p.cond.Signal()
}

func (p *replyPump) take() ([]byte, io.Writer, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.q) == 0 && !p.closed {
		p.cond.Wait()
	}
	if p.closed {
		return nil, nil, false
	}
	b := p.q
	p.q = nil
	return b, p.w, true
}

func (p *replyPump) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.q = nil
	p.cond.Broadcast()
}
