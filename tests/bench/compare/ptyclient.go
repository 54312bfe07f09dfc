package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// ptyClient is an attach client (`signaltty attach`, `tmux attach`) run on
// a PTY this program opened, as a terminal emulator runs one: what the
// client writes to its terminal is read from the PTY's master all along
// and kept, with the time of each read; keys are written into the master.
type ptyClient struct {
	cmd     *exec.Cmd
	master  *os.File
	feed    func(at time.Time, data []byte) // each read as it comes, if set
	mu      sync.Mutex
	chunks  []outChunk
	done    chan struct{} // the reader ended
	untrack func()
}

// outChunk is one read of the master.
type outChunk struct {
	at   time.Time
	data []byte
}

// startClient runs argv (environment env) on a new PTY of sz.
func startClient(argv, env []string, sz size, feed func(time.Time, []byte)) (*ptyClient, error) {
	c := &ptyClient{cmd: exec.Command(argv[0], argv[1:]...), feed: feed, done: make(chan struct{})}
	c.cmd.Env = env
	m, err := pty.StartWithSize(c.cmd, &pty.Winsize{Cols: uint16(sz.cols), Rows: uint16(sz.rows)})
	if err != nil {
		return nil, err
	}
	c.master = m
	c.untrack = track(c.stop)
	go c.read()
	return c, nil
}

func (c *ptyClient) read() {
	defer close(c.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := c.master.Read(buf)
		if n > 0 {
			at := time.Now()
			d := append([]byte(nil), buf[:n]...)
			if c.feed != nil {
				c.feed(at, d)
			}
			c.mu.Lock()
			c.chunks = append(c.chunks, outChunk{at, d})
			c.mu.Unlock()
		}
		if err != nil {
			return // EIO once the client is gone
		}
	}
}

func (c *ptyClient) pid() int { return c.cmd.Process.Pid }

// stop kills the client and closes the PTY.
func (c *ptyClient) stop() {
	c.untrack()
	c.cmd.Process.Kill()
	c.cmd.Wait()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	c.master.Close()
}

// output is a copy of what the client wrote so far.
func (c *ptyClient) output() []outChunk {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]outChunk(nil), c.chunks...)
}

// shows tells whether s is in the client's output.
func (c *ptyClient) shows(s string) bool {
	var all []byte
	for _, ch := range c.output() {
		all = append(all, ch.data...)
	}
	return strings.Contains(string(all), s)
}

// bytesIn is how many bytes the client wrote in reads from t0 up to t1.
func (c *ptyClient) bytesIn(t0, t1 time.Time) int64 {
	var n int64
	for _, ch := range c.output() {
		if !ch.at.Before(t0) && ch.at.Before(t1) {
			n += int64(len(ch.data))
		}
	}
	return n
}

// last is the time of the client's last output (zero: none).
func (c *ptyClient) last() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.chunks) == 0 {
		return time.Time{}
	}
	return c.chunks[len(c.chunks)-1].at
}

// signalttyClient is `signaltty attach --pane P` against d.
func signalttyClient(b *bench, d *daemon, pane string, feed func(time.Time, []byte)) (*ptyClient, error) {
	return startClient([]string{filepath.Join(b.bin, "signaltty"), "attach", "--pane", pane},
		append(append([]string(nil), d.env...), "TERM=xterm-256color"), agentSize, feed)
}

// tmuxClient is `tmux -u attach -t target` against t (-u: the client's
// terminal takes UTF-8 whatever the locale).
func tmuxClient(t *tmuxServer, target string, feed func(time.Time, []byte)) (*ptyClient, error) {
	argv := append(append([]string(nil), t.bin.argv...), "-u", "-S", t.sock, "-f", "/dev/null", "attach", "-t", target)
	return startClient(argv, append(os.Environ(), "TMUX=", "TERM=xterm-256color"), agentSize, feed)
}

// screenRows is an emulator's rows, trailing spaces trimmed (a wide
// character once, as captures have it).
func screenRows(e *vt.Emulator) []string {
	out := make([]string, e.Height())
	var b strings.Builder
	for y := range out {
		b.Reset()
		for x := 0; x < e.Width(); x++ {
			if c := e.CellAt(x, y); c != nil {
				b.WriteString(c.Content)
			}
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// screenSince feeds a client's output, read by read, into an emulator of
// sz and tells when its screen last became want (every row's text) and
// stayed so to the end; rows is the screen at the end. Reads before from
// are fed without comparing: a screen that already showed want then
// shows it from from on.
func screenSince(chunks []outChunk, sz size, want []string, from time.Time) (since time.Time, ok bool, rows []string) {
	e := vt.NewEmulator(sz.cols, sz.rows)
	go io.Copy(io.Discard, e) // its answers to the client's queries
	defer e.Close()
	for _, ch := range chunks {
		e.Write(ch.data)
		if ch.at.Before(from) {
			continue
		}
		if sameLines(screenRows(e), want) {
			if since.IsZero() {
				since = ch.at
			}
		} else {
			since = time.Time{}
		}
	}
	rows = screenRows(e)
	if since.IsZero() && sameLines(rows, want) {
		since = from // nothing came from from on, and it showed want before
	}
	return since, !since.IsZero(), rows
}

// keyRune is the character of key i: U+0100 onwards (Latin Extended-A and
// -B, one cell wide each), two UTF-8 bytes no control sequence contains.
func keyRune(i int) rune { return rune(0x100 + i) }

// maxKeys is how many distinct keys keyRune has (up to U+024F).
const maxKeys = 0x250 - 0x100

// keyTracker follows keys written into a client and when each one's
// character first came out of it.
type keyTracker struct {
	mu    sync.Mutex
	sent  []time.Time
	seen  []time.Time
	carry []byte // an incomplete UTF-8 sequence at the end of a read
}

func newKeyTracker(n int) *keyTracker {
	return &keyTracker{sent: make([]time.Time, n), seen: make([]time.Time, n)}
}

// feed is the client's reader's: it notes the keys whose characters are
// in data.
func (k *keyTracker) feed(at time.Time, data []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	buf := append(k.carry, data...)
	k.carry = nil
	for len(buf) > 0 {
		if buf[0] < 0x80 {
			buf = buf[1:]
			continue
		}
		if !utf8.FullRune(buf) {
			k.carry = append([]byte(nil), buf...)
			break
		}
		r, n := utf8.DecodeRune(buf)
		if i := int(r) - 0x100; i >= 0 && i < len(k.seen) && k.seen[i].IsZero() {
			k.seen[i] = at
		}
		buf = buf[n:]
	}
}

// send writes key i into the client's terminal.
func (k *keyTracker) send(i int, w io.Writer) error {
	s := string(keyRune(i))
	k.mu.Lock()
	k.sent[i] = time.Now()
	k.mu.Unlock()
	_, err := io.WriteString(w, s)
	return err
}

// result is the latencies of the keys seen and how many were not.
func (k *keyTracker) result() (lat []time.Duration, lost int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := range k.sent {
		if k.seen[i].IsZero() {
			lost++
			continue
		}
		lat = append(lat, k.seen[i].Sub(k.sent[i]))
	}
	return lat, lost
}

// allSeen tells whether every key written came out.
func (k *keyTracker) allSeen() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := range k.sent {
		if k.seen[i].IsZero() {
			return false
		}
	}
	return true
}

// sumCPU is the clients' utime+stime together, in seconds.
func sumCPU(cs []*ptyClient) float64 {
	t := 0.0
	for _, c := range cs {
		t += cpuSeconds(c.pid())
	}
	return t
}
