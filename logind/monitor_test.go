package logind_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signaltty/signaltty/logind"
	"github.com/signaltty/signaltty/tests/harness"
)

// These tests run a Monitor in-process (with -race in tests/run) against
// harness.FakeLogind on a private dbus-daemon. The daemon-level behaviour,
// against the real systemd-logind, is in tests/logind_test.go.

// rig is one monitor with recording callbacks.
type rig struct {
	bus  *harness.Bus
	fake *harness.FakeLogind
	mon  *logind.Monitor
	logs *logBuffer

	mu      sync.Mutex
	events  []string      // "save", "stop", "thaw" in call order
	saveErr error         // returned by Save
	gate    chan struct{} // Save waits for it when not nil
	saving  chan struct{} // receives when Save starts

	cancel context.CancelFunc
	done   chan struct{}
}

func newRig(t *testing.T, o harness.FakeLogindOptions) *rig {
	t.Helper()
	r := &rig{bus: harness.StartBus(t), logs: &logBuffer{}, saving: make(chan struct{}, 4)}
	r.fake = harness.StartFakeLogind(t, r.bus, o)
	r.start(t)
	return r
}

func (r *rig) start(t *testing.T) {
	t.Helper()
	r.mon = logind.New(logind.Config{
		Address: r.bus.Address,
		Save: func() (time.Duration, error) {
			r.record("save")
			r.saving <- struct{}{}
			r.mu.Lock()
			gate, err := r.gate, r.saveErr
			r.mu.Unlock()
			if gate != nil {
				<-gate
			}
			return time.Millisecond, err
		},
		Stop:       func() { r.record("stop") },
		Thaw:       func() { r.record("thaw") },
		Logger:     slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MinBackoff: 50 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		r.mon.Run(ctx)
	}()
	t.Cleanup(r.end)
}

// end cancels Run and waits for it.
func (r *rig) end() {
	r.cancel()
	<-r.done
}

func (r *rig) record(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *rig) calls() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, ",")
}

func (r *rig) waitState(t *testing.T, what string, cond func(logind.Status) bool) logind.Status {
	t.Helper()
	var st logind.Status
	harness.Eventually(t, harness.PollTimeout, what, func() (bool, string) {
		st = r.mon.Status()
		return cond(st), r.logs.String()
	})
	return st
}

func (r *rig) waitHolding(t *testing.T) logind.Status {
	t.Helper()
	return r.waitState(t, "holding", func(s logind.Status) bool { return s.State == logind.Holding && s.Holding })
}

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestShutdownSavesReleasesStops(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{Delay: 3 * time.Second})
	st := r.waitHolding(t)
	if st.InhibitDelay != 3*time.Second || st.Owner == "" || st.Inhibits != 1 {
		t.Errorf("status %+v", st)
	}
	if n := len(r.fake.Inhibitors()); n != 1 {
		t.Fatalf("fake logind has %d inhibitors", n)
	}
	r.fake.Emit(true)
	st = r.waitState(t, "stopped", func(s logind.Status) bool { return r.calls() == "save,stop" })
	if st.State != logind.Stopping || st.Holding || st.LastSaveAt.IsZero() || st.LastSaveTook != time.Millisecond || st.LastSaveRelease <= 0 {
		t.Errorf("status after the shutdown save: %+v", st)
	}
	harness.Eventually(t, harness.PollTimeout, "the fake saw the release", func() (bool, string) {
		return len(r.fake.Inhibitors()) == 0, ""
	})
	r.end()
	if got := r.calls(); got != "save,stop" {
		t.Errorf("calls %q", got)
	}
	if st := r.mon.Status(); st.State != logind.Stopping {
		t.Errorf("state after Run %q, want stopping", st.State)
	}
}

func TestSaveErrorStillStops(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{})
	r.mu.Lock()
	r.saveErr = errors.New("disk full")
	r.mu.Unlock()
	r.waitHolding(t)
	r.fake.Emit(true)
	st := r.waitState(t, "stopped", func(s logind.Status) bool { return r.calls() == "save,stop" })
	if st.LastSaveError != "disk full" || st.Holding {
		t.Errorf("status %+v", st)
	}
	if !strings.Contains(r.logs.String(), "saving the snapshot for shutdown failed") {
		t.Errorf("log:\n%s", r.logs)
	}
}

func TestCancelDuringSave(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{})
	gate := make(chan struct{})
	r.mu.Lock()
	r.gate = gate
	r.mu.Unlock()
	r.waitHolding(t)
	r.fake.Emit(true)
	<-r.saving
	r.fake.Emit(false)
	harness.Eventually(t, harness.PollTimeout, "the cancellation seen", func() (bool, string) {
		return strings.Contains(r.logs.String(), "shutdown cancelled"), r.logs.String()
	})
	close(gate)
	st := r.waitState(t, "holding again", func(s logind.Status) bool {
		return s.State == logind.Holding && r.calls() == "save,thaw"
	})
	if !st.Holding || st.Inhibits != 1 || len(r.fake.Inhibitors()) != 1 {
		t.Errorf("status %+v, fake inhibitors %v", st, r.fake.Inhibitors())
	}
	// A later shutdown is handled.
	r.mu.Lock()
	r.gate = nil
	r.mu.Unlock()
	r.fake.Emit(true)
	r.waitState(t, "stopped", func(s logind.Status) bool { return r.calls() == "save,thaw,save,stop" })
}

func TestFalseAloneKeepsRunning(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{})
	r.waitHolding(t)
	r.fake.Emit(false)
	harness.Eventually(t, harness.PollTimeout, "the false seen", func() (bool, string) {
		return strings.Contains(r.logs.String(), "PrepareForShutdown(false)"), r.logs.String()
	})
	if got := r.calls(); got != "" {
		t.Errorf("calls %q after a lone false, want none (nothing was frozen)", got)
	}
	if st := r.mon.Status(); st.State != logind.Holding || !st.Holding {
		t.Errorf("status %+v", st)
	}
}

func TestBackoffGrowsCapsAndResets(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{Refuse: "org.freedesktop.DBus.Error.AccessDenied"})
	harness.Eventually(t, harness.PollTimeout, "five refused calls", func() (bool, string) {
		return len(r.fake.InhibitCalls()) >= 5, r.logs.String()
	})
	st := r.waitState(t, "backoff", func(s logind.Status) bool { return s.State == logind.Backoff })
	if st.State != logind.Backoff || !strings.Contains(st.LastError, "AccessDenied") || st.NextRetry.IsZero() {
		t.Errorf("status %+v", st)
	}
	// The waits the monitor chose: 50, 100, 200, 200 ms. A timer never
	// fires early, so each gap between the fake's calls is at least its
	// wait; how much longer depends on the machine's load, not on us.
	var waits []time.Duration
	harness.Eventually(t, harness.PollTimeout, "four logged waits", func() (bool, string) {
		waits = retryWaits(r.logs.String())
		return len(waits) >= 4, r.logs.String()
	})
	want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond}
	if len(waits) < len(want) || !slices.Equal(waits[:len(want)], want) {
		t.Fatalf("retry waits %v, want %v first", waits, want)
	}
	c := r.fake.InhibitCalls()
	for i := 1; i < 5; i++ {
		if gap := c[i].Sub(c[i-1]); gap < want[i-1] {
			t.Errorf("call %d came %v after the one before, sooner than its wait %v", i+1, gap, want[i-1])
		}
	}
	r.fake.SetRefuse("")
	r.waitHolding(t)

	// logind goes away: the first retry comes after the minimum again (the
	// success reset the backoff).
	logged := len(retryWaits(r.logs.String()))
	r.fake.Close()
	st = r.waitState(t, "backoff after logind left", func(s logind.Status) bool {
		return s.State == logind.Backoff && strings.Contains(s.LastError, "left the system bus")
	})
	var w []time.Duration
	harness.Eventually(t, harness.PollTimeout, "a wait logged after logind left", func() (bool, string) {
		w = retryWaits(r.logs.String())
		return len(w) > logged, r.logs.String()
	})
	if w[logged] != 50*time.Millisecond {
		t.Errorf("retry waits %v; want the first after logind left (%d) reset to 50 ms", w, logged)
	}
	// A new logind is asked at once when its name appears.
	f2 := harness.StartFakeLogind(t, r.bus, harness.FakeLogindOptions{})
	if st := r.waitHolding(t); st.Inhibits != 2 || len(f2.InhibitCalls()) != 1 {
		t.Errorf("status %+v, calls %v", st, f2.InhibitCalls())
	}
}

func TestRunEndReleases(t *testing.T) {
	r := newRig(t, harness.FakeLogindOptions{})
	r.waitHolding(t)
	r.end()
	if st := r.mon.Status(); st.State != logind.Off || st.Holding {
		t.Errorf("status after Run %+v", st)
	}
	harness.Eventually(t, harness.PollTimeout, "the fake saw the release", func() (bool, string) {
		return len(r.fake.Inhibitors()) == 0, ""
	})
	if got := r.calls(); got != "" {
		t.Errorf("calls %q", got)
	}
}

func TestNoBusBacksOff(t *testing.T) {
	bus := harness.NewBus(t)
	r := &rig{bus: bus, logs: &logBuffer{}, saving: make(chan struct{}, 4)}
	r.start(t)
	st := r.waitState(t, "backoff", func(s logind.Status) bool { return s.State == logind.Backoff })
	if !strings.Contains(st.LastError, "system bus") {
		t.Errorf("last error %q", st.LastError)
	}
	bus.Start(t)
	r.fake = harness.StartFakeLogind(t, bus, harness.FakeLogindOptions{})
	r.waitHolding(t)
}

// retryWaits reads the waits the monitor logged with each failed attempt
// ("retry_in=…"), in order.
func retryWaits(log string) []time.Duration {
	var out []time.Duration
	for _, line := range strings.Split(log, "\n") {
		_, v, ok := strings.Cut(line, " retry_in=")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, " ")
		if d, err := time.ParseDuration(v); err == nil {
			out = append(out, d)
		}
	}
	return out
}
