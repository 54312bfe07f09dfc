package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// rawReply is one message the daemon sent on a raw connection.
type rawReply struct {
	Error      string             `json:"error"`
	Parameters harness.ErrorReply `json:"parameters"`
}

// readRaw reads one NUL-terminated message from a raw connection, within timeout.
func readRaw(c net.Conn, rd *bufio.Reader, timeout time.Duration) (rawReply, []byte, error) {
	c.SetReadDeadline(time.Now().Add(timeout))
	msg, err := rd.ReadBytes(0)
	if err != nil {
		return rawReply{}, msg, err
	}
	var r rawReply
	if err := json.Unmarshal(msg[:len(msg)-1], &r); err != nil {
		return r, msg, fmt.Errorf("undecodable reply %q: %v", msg, err)
	}
	return r, msg, nil
}

// procStatus reads a field of /proc/PID/status in kB.
func procStatus(t testing.TB, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the daemon's status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// Thirty connections each sending 15 MiB without the terminating NUL: all
// but the few the request budget covers are refused at once with
// unavailable.request_budget, every one is closed after the
// incomplete-message timeout, and the daemon's resident size returns to
// within twice its idle level once they are gone.
func TestLargeIncompleteRequestsStayWithinTheBudgetAndAreReleased(t *testing.T) {
	t.Parallel()
	// The race detector's shadow memory is never handed back. The
	// incomplete-message timeout outlasts the writing of every request on
	// a loaded machine: a request that times out before the budget is full
	// was covered by it, and the test asks which ones the budget refuses.
	d := harness.Start(t, harness.Options{WithoutRace: true, Env: []string{"SIGNALTTY_REQUEST_TIMEOUT_MS=15000"}})
	for i := 0; i < 5; i++ {
		d.Status(t)
	}
	idle := procStatus(t, d.Pid(), "VmRSS")
	const conns, size = 30, 15 << 20
	head := []byte(`{"method":"dev.signaltty.Server.GetStatus","parameters":{"pad":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		c := d.DialUnix(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			go func() {
				c.Write(head)
				for n := 0; n < size>>20; n++ {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
			// Either refused at once, or (covered by the budget) timed out:
			// both end with one error and the connection closed.
			rd := bufio.NewReader(c)
			r, msg, err := readRaw(c, rd, 60*time.Second)
			code := r.Parameters.Code
			if err != nil {
				code = "no reply: " + err.Error()
			} else if r.Parameters.Message == "" {
				code = "no message: " + string(msg)
			} else if rest, err := io.ReadAll(rd); len(rest) != 0 || (err != nil && !os.IsTimeout(err) && !errors.Is(err, syscall.ECONNRESET)) {
				// The daemon closes a refused connection while this client's
				// writer is still sending: the kernel then reports the close
				// as a reset (unread data), which is a close all the same.
				code += fmt.Sprintf(" then %q %v", rest, err)
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	peak := procStatus(t, d.Pid(), "VmHWM")
	t.Logf("idle RSS %d kB, peak %d kB, replies %v", idle, peak, codes)
	if codes["unavailable.request_budget"] < conns-5 || codes["unavailable.request_budget"]+codes["timeout.request"] != conns {
		t.Errorf("replies to %d incomplete 15 MiB requests: %v; want at most 5 timeout.request (what a 64 MiB budget covers), the rest unavailable.request_budget", conns, codes)
	}
	if peak > idle+300<<10 {
		t.Errorf("peak resident size %d kB with an idle size of %d kB: the request budget did not bound memory", peak, idle)
	}
	harness.Eventually(t, 60*time.Second, "the daemon's resident size is within twice its idle size", func() (bool, string) {
		rss := procStatus(t, d.Pid(), "VmRSS")
		return rss <= 2*idle, fmt.Sprintf("VmRSS %d kB, idle %d kB", rss, idle)
	})
	t.Logf("RSS back to %d kB", procStatus(t, d.Pid(), "VmRSS"))
	if st := d.Status(t); st.Pid != d.Pid() {
		t.Errorf("status after the load: %+v", st)
	}
}

// A complete large request is served, and its buffer is handed back: the
// resident size returns to within twice the idle level.
func TestLargeCompleteRequestIsServedAndReleased(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{WithoutRace: true}) // see above
	for i := 0; i < 5; i++ {
		d.Status(t)
	}
	idle := procStatus(t, d.Pid(), "VmRSS")
	c := d.DialUnix(t)
	go func() {
		c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus","parameters":{"pad":"`))
		c.Write(bytes.Repeat([]byte("x"), 15<<20))
		c.Write([]byte("\"}}\x00"))
	}()
	rd := bufio.NewReader(c)
	if _, msg, err := readRaw(c, rd, 60*time.Second); err != nil {
		t.Fatalf("reply to a 15 MiB request: %v", err)
	} else if len(msg) == 0 {
		t.Fatalf("empty reply")
	}
	// The same connection serves a small call next.
	c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
	if r, msg, err := readRaw(c, rd, 30*time.Second); err != nil || r.Error != "" {
		t.Fatalf("small call after a large one: %s %v", msg, err)
	}
	harness.Eventually(t, 60*time.Second, "the daemon's resident size is within twice its idle size", func() (bool, string) {
		rss := procStatus(t, d.Pid(), "VmRSS")
		return rss <= 2*idle, fmt.Sprintf("VmRSS %d kB, idle %d kB, peak %d kB", rss, idle, procStatus(t, d.Pid(), "VmHWM"))
	})
}

// A connection that starts a message and does not finish it within the
// timeout gets timeout.request and is closed; an idle connection (no
// message started) stays open and is served afterwards.
func TestIncompleteMessageIsClosedAfterTheTimeout(t *testing.T) {
	t.Parallel()
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_REQUEST_TIMEOUT_MS=300"}})
	idle := d.DialUnix(t)
	part := d.DialUnix(t)
	if _, err := part.Write([]byte(`{"method":"dev.signaltty.Server.GetSt`)); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(part)
	r, msg, err := readRaw(part, rd, 30*time.Second)
	if err != nil || r.Parameters.Code != "timeout.request" {
		t.Fatalf("reply to an unfinished message: %q %v, want a timeout.request error", msg, err)
	}
	if rest, err := io.ReadAll(rd); len(rest) != 0 || err != nil {
		t.Errorf("after the timeout error: %q %v, want the connection closed", rest, err)
	}
	idle.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
	if r, msg, err := readRaw(idle, bufio.NewReader(idle), 30*time.Second); err != nil || r.Error != "" {
		t.Errorf("an idle connection after another's timeout: %q %v, want it served", msg, err)
	}
}

// Past the connection limit a new connection gets unavailable.connections
// and is closed; once one closes, a new one is served.
func TestConnectionsPastTheLimitAreRefused(t *testing.T) {
	t.Parallel()
	const max = 4
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_MAX_CONNECTIONS=" + strconv.Itoa(max)}})
	// Hold max connections, each served once. The harness's own
	// connection (its readiness check) may not have been closed yet by the
	// daemon: a refusal before max is retried until it is.
	var held []*net.UnixConn
	harness.Eventually(t, harness.PollTimeout, fmt.Sprintf("%d connections are served", max), func() (bool, string) {
		for len(held) < max {
			c := d.DialUnix(t)
			c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
			r, msg, err := readRaw(c, bufio.NewReader(c), 30*time.Second)
			if err != nil || r.Error != "" {
				c.Close()
				return false, fmt.Sprintf("connection %d of %d: %q %v", len(held)+1, max, msg, err)
			}
			held = append(held, c)
		}
		return true, ""
	})
	extra := d.DialUnix(t)
	extra.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
	rd := bufio.NewReader(extra)
	r, msg, err := readRaw(extra, rd, 30*time.Second)
	if err != nil || r.Parameters.Code != "unavailable.connections" || r.Parameters.Message == "" {
		t.Fatalf("connection %d with a limit of %d: %q %v, want unavailable.connections", max+1, max, msg, err)
	}
	if rest, err := io.ReadAll(rd); len(rest) != 0 || err != nil {
		t.Errorf("after the refusal: %q %v, want the connection closed", rest, err)
	}
	held[0].Close()
	harness.Eventually(t, harness.PollTimeout, "a new connection is served once one closed", func() (bool, string) {
		c := d.DialUnix(t)
		defer c.Close()
		c.Write([]byte(`{"method":"dev.signaltty.Server.GetStatus"}` + "\x00"))
		r, msg, err := readRaw(c, bufio.NewReader(c), 30*time.Second)
		return err == nil && r.Error == "", fmt.Sprintf("%q %v", msg, err)
	})
}
