package varlink

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/docs/docstest"
	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
)

// The numbers of docs/run-wait.md and of the Run IDL's comments that this
// layer owns: the reply size, the tick of a Wait called with "more", and
// the range of Wait's timeout_ms.

const (
	runWaitDoc = "../docs/run-wait.md"
	runIDL     = "devsignalttyrun/dev.signaltty.Run.varlink"
)

func TestRunWaitReplyAndTickAreTheCode(t *testing.T) {
	doc, idl := docstest.Prose(t, runWaitDoc), docstest.Prose(t, runIDL)
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
		if got := docstest.Stated(t, c.where, c.text, c.pattern); got != nil && got[0] != c.code {
			t.Errorf("%s: %q states %d, the code has %d", c.where, c.pattern, got[0], c.code)
		}
	}
	if MaxReply%(1<<20) != 0 || waitTick%time.Second != 0 {
		t.Errorf("MaxReply (%d bytes) or waitTick (%v) is no longer a whole number of the unit the doc uses", MaxReply, waitTick)
	}
}

// TestRunWaitTimeoutRangeIsTheDoc calls Run.Wait over a socket with
// timeout_ms at and just outside the range the doc and the IDL state.
func TestRunWaitTimeoutRangeIsTheDoc(t *testing.T) {
	stated := docstest.Stated(t, "docs/run-wait.md", docstest.Prose(t, runWaitDoc), `'timeout_ms' \((\d+)\.\.(\d+)\): when it passes first`)
	idl := docstest.Stated(t, "dev.signaltty.Run.varlink", docstest.Prose(t, runIDL), `timeout_ms \((\d+)\.\.(\d+); 0 checks without waiting`)
	if stated == nil || idl == nil {
		t.FailNow()
	}
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
