package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	vl "github.com/varlink/go/varlink"
)

// CallError is a varlink error reply: its qualified name and its
// {code, message, data} parameters.
type CallError struct {
	Name string
	ErrorReply
}

func (e *CallError) Error() string { return e.Name + " " + e.Code + ": " + e.Message }

// Call makes one call on a raw connection and decodes the reply into out
// (if not nil). A varlink error reply is returned as *CallError; a
// transport failure fails the test.
func Call(t testing.TB, c *vl.Connection, method string, params any, out any) *CallError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	var raw json.RawMessage
	err := c.Call(ctx, method, params, &raw)
	if err != nil {
		var ve *vl.Error
		if errors.As(err, &ve) {
			ce := &CallError{Name: ve.Name}
			if p, ok := ve.Parameters.(*json.RawMessage); ok && p != nil {
				if jerr := json.Unmarshal(*p, &ce.ErrorReply); jerr != nil {
					t.Fatalf("%s: error %s has undecodable parameters %s: %v", method, ve.Name, *p, jerr)
				}
			}
			return ce
		}
		t.Fatalf("%s: %v", method, err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: cannot decode reply %s: %v", method, raw, err)
		}
	}
	return nil
}

// MustCall is Call that fails the test on an error reply.
func MustCall(t testing.TB, c *vl.Connection, method string, params any, out any) {
	t.Helper()
	if err := Call(t, c, method, params, out); err != nil {
		t.Fatalf("%s(%s) failed: %v", method, mustJSON(params), err)
	}
}

// CheckCallError requires err to be the error of class name (e.g.
// "dev.signaltty.Mux.InvalidParams") with code.
func CheckCallError(t testing.TB, err *CallError, name, code string) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("call succeeded, want error %s %s", name, code)
	case err.Name != name || !CodeMatches(err.Code, code):
		t.Errorf("error %s %q (%s), want %s %q", err.Name, err.Code, err.Message, name, code)
	case err.Message == "" || err.Data == nil:
		t.Errorf("error %s %s lacks a message or a data object: %+v", err.Name, err.Code, err.ErrorReply)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// Stream is an Events.Subscribe stream on its own connection.
type Stream struct {
	Ready  SubscribeReply // the first reply
	events chan Event
	mu     sync.Mutex
	seen   []Event
	err    error // why the stream ended
	ended  chan struct{}
	conn   *vl.Connection
}

// Subscribe opens a connection, calls Events.Subscribe with "more" and
// the given filters (nil: none), and returns once the ready reply arrived.
// The connection is closed at cleanup.
func (d *Daemon) Subscribe(t testing.TB, types, resources []string) *Stream {
	t.Helper()
	c := d.Dial(t)
	params := map[string]any{}
	if types != nil {
		params["types"] = types
	}
	if resources != nil {
		params["resources"] = resources
	}
	ctx := context.Background()
	recv, err := c.Send(ctx, "dev.signaltty.Events.Subscribe", params, vl.More)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	s := &Stream{events: make(chan Event, 100000), ended: make(chan struct{}), conn: c}
	first := make(chan error, 1)
	go func() {
		defer close(s.ended)
		defer close(s.events)
		ready := false
		for {
			var r SubscribeReply
			flags, err := recv(ctx, &r)
			if err != nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				if !ready {
					first <- err
				}
				return
			}
			if !ready {
				ready = true
				s.Ready = r
				if !r.Ready || r.Event != nil && string(r.Event) != "null" {
					first <- fmt.Errorf("first Subscribe reply is not a bare ready reply: %+v", r)
					return
				}
				first <- nil
			} else {
				if r.Ready {
					s.fail(fmt.Errorf("a reply after the first has ready=true: %+v", r))
					return
				}
				if len(r.Event) == 0 || string(r.Event) == "null" {
					s.fail(fmt.Errorf("a reply after the first carries no event: %+v", r))
					return
				}
				var e Event
				if err := json.Unmarshal(r.Event, &e); err != nil {
					s.fail(fmt.Errorf("undecodable event %s: %v", r.Event, err))
					return
				}
				e.Raw = append(json.RawMessage{}, r.Event...)
				s.mu.Lock()
				s.seen = append(s.seen, e)
				s.mu.Unlock()
				s.events <- e
			}
			if flags&vl.Continues == 0 {
				s.fail(errors.New("the stream ended (a reply without continues)"))
				return
			}
		}
	}()
	select {
	case err := <-first:
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
	case <-time.After(PollTimeout):
		t.Fatalf("Subscribe: no ready reply within %v", PollTimeout)
	}
	return s
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

// Err returns why the stream ended (nil while it runs).
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Seen returns every event received so far, in arrival order.
func (s *Stream) Seen() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event{}, s.seen...)
}

// Next returns the next event, failing the test after timeout.
func (s *Stream) Next(t testing.TB, timeout time.Duration) Event {
	t.Helper()
	select {
	case e, ok := <-s.events:
		if !ok {
			t.Fatalf("event stream ended: %v; events seen:\n%s", s.Err(), DumpEvents(s.Seen()))
		}
		return e
	case <-time.After(timeout):
		t.Fatalf("no event within %v; events seen:\n%s", timeout, DumpEvents(s.Seen()))
	}
	return Event{}
}

// WaitFor consumes events until one satisfies match and returns it; the
// test fails after timeout.
func (s *Stream) WaitFor(t testing.TB, timeout time.Duration, what string, match func(Event) bool) Event {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("event stream ended (%v) before %s; events seen:\n%s", s.Err(), what, DumpEvents(s.Seen()))
			}
			if match(e) {
				return e
			}
		case <-deadline.C:
			t.Fatalf("no event %s within %v; events seen:\n%s", what, timeout, DumpEvents(s.Seen()))
		}
	}
}

// WaitCount waits until n events were received in total and returns the first n.
func (s *Stream) WaitCount(t testing.TB, timeout time.Duration, n int) []Event {
	t.Helper()
	Eventually(t, timeout, fmt.Sprintf("%d events arrived", n), func() (bool, string) {
		seen := s.Seen()
		return len(seen) >= n, DumpEvents(seen)
	})
	return s.Seen()[:n]
}

// Close ends the subscription.
func (s *Stream) Close() { s.conn.Close() }

// DumpEvents renders events for failure messages.
func DumpEvents(es []Event) string {
	if len(es) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%d %s %s %s\n", e.Seq, e.Type, e.Resource, e.Raw)
	}
	return b.String()
}

// Types lists the types of events.
func Types(es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}
