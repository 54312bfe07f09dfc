package varlink

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
)

// The numbers of docs/run-wait.md and of the Run IDL's comments that this
// layer owns: the reply size, the tick of a Wait called with "more", and
// the range of Wait's timeout_ms.

// readProse returns a text file with every run of white space, and the IDL's
// comment markers at the start of a line, turned into one space.
func readProse(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`\n[ \t]*#?[ \t]*`).ReplaceAllString(string(b), " ")
	return regexp.MustCompile(`[ \t]+`).ReplaceAllString(s, " ")
}

// statedNumbers returns the numbers pattern captures in text, which it must
// match exactly once; in pattern ' stands for a backquote.
func statedNumbers(t *testing.T, where, text, pattern string) []int64 {
	t.Helper()
	ms := regexp.MustCompile(strings.ReplaceAll(pattern, "'", "`")).FindAllStringSubmatch(text, -1)
	if len(ms) != 1 {
		t.Fatalf("%s: %q matches %d times, want once (reworded? then change the pattern, not the number)", where, pattern, len(ms))
	}
	var out []int64
	for _, g := range ms[0][1:] {
		n, err := strconv.ParseInt(strings.ReplaceAll(g, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", where, pattern, err)
		}
		out = append(out, n)
	}
	return out
}

const (
	runWaitDoc = "../docs/run-wait.md"
	runIDL     = "devsignalttyrun/dev.signaltty.Run.varlink"
)

func TestRunWaitReplyAndTickAreTheCode(t *testing.T) {
	doc, idl := readProse(t, runWaitDoc), readProse(t, runIDL)
	for _, c := range []struct {
		where, text, pattern string
		code                 int64
	}{
		{"docs/run-wait.md", doc, `'Cancel' and 'List' is at most (\d+) MiB of JSON`, MaxReply >> 20},
		{"docs/run-wait.md", doc, `A reply-size limit per connection: it is (\d+) MiB for every call`, MaxReply >> 20},
		{"dev.signaltty.Run.varlink", idl, `the reply exceeds (\d+) MiB`, MaxReply >> 20},
		{"docs/run-wait.md", doc, `'continues: true'\) every (\d+) s until the final reply`, int64(waitTick / time.Second)},
		{"dev.signaltty.Run.varlink", idl, `is sent every (\d+) s until the final one`, int64(waitTick / time.Second)},
	} {
		if got := statedNumbers(t, c.where, c.text, c.pattern)[0]; got != c.code {
			t.Errorf("%s: %q states %d, the code has %d", c.where, c.pattern, got, c.code)
		}
	}
	if MaxReply%(1<<20) != 0 || waitTick%time.Second != 0 {
		t.Errorf("MaxReply (%d bytes) or waitTick (%v) is no longer a whole number of the unit the doc uses", MaxReply, waitTick)
	}
}

// TestRunWaitTimeoutRangeIsTheDoc calls Run.Wait over a socket with
// timeout_ms at and just outside the range the doc and the IDL state.
func TestRunWaitTimeoutRangeIsTheDoc(t *testing.T) {
	stated := statedNumbers(t, "docs/run-wait.md", readProse(t, runWaitDoc), `'timeout_ms' \((\d+)\.\.(\d+)\): when it passes first`)
	idl := statedNumbers(t, "dev.signaltty.Run.varlink", readProse(t, runIDL), `timeout_ms \((\d+)\.\.(\d+); 0 checks without waiting`)
	if stated[0] != idl[0] || stated[1] != idl[1] {
		t.Errorf("the IDL states timeout_ms as %d..%d, the doc as %d..%d", idl[0], idl[1], stated[0], stated[1])
	}
	svc := service.New(service.Config{Version: "t", Address: "unix:/nonexistent", Environ: os.Environ(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		svc.Shutdown(ctx)
	})
	vsvc, err := vl.NewService("t", "t", "0", "")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(vsvc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := vsvc.RegisterInterface(s.Track(Guard(svc, NewRun(svc)))); err != nil {
		t.Fatal(err)
	}
	c, _ := servePair(t, s)
	rd := bufio.NewReader(c)
	for _, v := range []struct {
		ms int64
		ok bool
	}{{stated[0] - 1, false}, {stated[0], true}, {stated[1], true}, {stated[1] + 1, false}} {
		msg := `{"method":"dev.signaltty.Run.Wait","parameters":{"run":"r999999","timeout_ms":` + strconv.FormatInt(v.ms, 10) + `}}` + "\x00"
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		reply := readMsg(t, c, rd)
		// In range, the unknown run is what fails the call.
		if inRange := !strings.Contains(reply, "invalid_params.timeout_ms"); inRange != v.ok || v.ok && !strings.Contains(reply, "not_found.run") {
			t.Errorf("Run.Wait with timeout_ms %d: %s", v.ms, reply)
		}
	}
}
