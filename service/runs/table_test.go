package runs

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

func newTestTable() *Table {
	return NewTable("test", slog.New(slog.NewTextHandler(io.Discard, nil)), func() {})
}

// started commits a record for key on pane "p-"+key, as the service does
// once the run's pane committed.
func started(t *testing.T, tb *Table, mu *sync.Mutex, key string) *Record {
	t.Helper()
	rec := NewRecord(key, "owner", tb.Digest(Params{Key: key}), false, 0, 100, 65536)
	if err := tb.TakeID(mu, rec); err != nil {
		t.Fatal(err)
	}
	if err := tb.Admit(); err != nil {
		t.Fatal(err)
	}
	tb.Launched()
	c := tb.Commit(rec, "p-"+key, "t", "w", 1, func() {})
	if len(c.Events) != 1 || c.Events[0] != (events.RunStarted{Run: rec.ID(), Pane: "p-" + key}) {
		t.Fatalf("commit events %v", c.Events)
	}
	return rec
}

func code(err error) errcode.Code {
	if e, ok := err.(*errcode.Error); ok && e != nil {
		return e.Code
	}
	return ""
}

// A wait status maps to an outcome and a status (docs/run-wait.md,
// "Outcomes and status"); a terminating run is terminated whatever its
// exit, 124 when the deadline stopped it.
func TestRunOutcomeAndStatusFromWaitStatus(t *testing.T) {
	zero, seven := 0, 7
	for _, c := range []struct {
		name    string
		cause   string
		st      pty.ExitStatus
		outcome string
		status  int
	}{
		{"exit 0", "", pty.ExitStatus{Code: &zero}, OutcomeSucceeded, 0},
		{"exit 7", "", pty.ExitStatus{Code: &seven}, OutcomeFailed, 7},
		{"SIGKILL", "", pty.ExitStatus{Signal: "SIGKILL"}, OutcomeSignaled, 137},
		{"cancelled", CauseCancel, pty.ExitStatus{Code: &zero}, OutcomeTerminated, 125},
		{"deadline", CauseDeadline, pty.ExitStatus{Signal: "SIGHUP"}, OutcomeTerminated, 124},
	} {
		tb, mu := newTestTable(), &sync.Mutex{}
		rec := started(t, tb, mu, "k")
		if c.cause != "" {
			if ch := tb.Terminating(rec, c.cause); len(ch.Events) != 1 {
				t.Fatalf("%s: terminating events %v", c.name, ch.Events)
			}
			if ch := tb.Terminating(rec, CauseRemoval); len(ch.Events) != 0 {
				t.Fatalf("%s: a second cause published %v", c.name, ch.Events)
			}
		}
		ch := tb.Complete(rec, c.st, nil)
		tb.Wake(rec)
		got := rec.Snapshot("test", true)
		if got.Outcome != c.outcome || got.Status == nil || *got.Status != c.status || got.State != StateCompleted ||
			(c.cause != "" && got.Cause != c.cause) {
			t.Errorf("%s: %+v, want %s status %d", c.name, got, c.outcome, c.status)
		}
		if len(ch.Events) != 1 || ch.Events[0].EventType() != events.TypeRunCompleted {
			t.Errorf("%s: complete events %v", c.name, ch.Events)
		}
		select {
		case <-rec.Done():
		default:
			t.Errorf("%s: waiters not woken", c.name)
		}
		if again := tb.Complete(rec, c.st, nil); len(again.Events) != 0 {
			t.Errorf("%s: completing twice published %v", c.name, again.Events)
		}
		tb.Wake(rec) // a second wake is harmless
	}
}

// Beyond retain_count the oldest completed record goes, its key is free
// again, and its id reads expired; an id never taken reads unknown
// (docs/run-wait.md, "Retention").
func TestRunRetentionDropsOldestAndFreesItsKey(t *testing.T) {
	tb, mu := newTestTable(), &sync.Mutex{}
	one := 1
	tb.SetConfig(nil, &one, nil, nil)
	tb.SetRemovePanes(true)
	zero := 0
	a, b := started(t, tb, mu, "a"), started(t, tb, mu, "b")
	tb.Complete(a, pty.ExitStatus{Code: &zero}, nil)
	ch := tb.Complete(b, pty.ExitStatus{Code: &zero}, nil)
	if len(ch.Events) != 2 || ch.Events[1] != (events.RunExpired{Run: a.ID()}) || len(ch.RemovePanes) != 1 || ch.RemovePanes[0] != "p-a" {
		t.Fatalf("changes %+v, want run.completed then run.expired of %s and its pane", ch, a.ID())
	}
	if _, err := tb.Lookup(a.ID()); code(err) != errcode.NotFoundRun || err.Data["reason"] != "expired" {
		t.Fatalf("evicted %s: %v", a.ID(), err)
	}
	if _, err := tb.Lookup("r99"); code(err) != errcode.NotFoundRun || err.Data["reason"] != "unknown" {
		t.Fatalf("r99: %v", err)
	}
	c, _, err := tb.Claim(context.Background(), mu, "owner", "a", tb.Digest(Params{Key: "a", OutputRows: 1}))
	if c == nil || err != nil {
		t.Fatalf("key of an evicted run: claim %v %v, want a new start", c, err)
	}
	tb.Release(c, Start{}, nil)
	if _, _, err := tb.Claim(context.Background(), mu, "owner", "b", tb.Digest(Params{Key: "b", OutputRows: 1})); code(err) != errcode.ConflictRunKey {
		t.Fatalf("key of a retained run with other parameters: %v, want conflict.run_key", err)
	}
	if _, res, err := tb.Claim(context.Background(), mu, "owner", "b", tb.Digest(Params{Key: "b"})); err != nil || !res.Reused || res.Run != b.ID() {
		t.Fatalf("key of a retained run: %+v %v, want %s reused", res, err, b.ID())
	}
	if retained, active, n := tb.Counts(); retained != 1 || active != 0 || n != 2 {
		t.Fatalf("counts %d %d %d", retained, active, n)
	}
}

// max_active counts runs not completed and starts admitted but not yet
// launched (docs/run-wait.md, "Retention").
func TestRunAdmitCountsActiveAndReserved(t *testing.T) {
	tb, mu := newTestTable(), &sync.Mutex{}
	two := 2
	tb.SetConfig(&two, nil, nil, nil)
	started(t, tb, mu, "a")
	if err := tb.Admit(); err != nil {
		t.Fatal(err)
	}
	if err := tb.Admit(); code(err) != errcode.UnavailableRunLimit {
		t.Fatalf("third active: %v, want unavailable.run_limit", err)
	}
}

// The digest compares sets as sets and empty values as absent ones
// (docs/run-wait.md, "Keys").
func TestRunDigestCanonical(t *testing.T) {
	tb := newTestTable()
	same := [][2]Params{
		{{Key: "k", Grants: []string{"b", "a", "a"}}, {Key: "k", Grants: []string{"a", "b"}}},
		{{Key: "k", EnvUnset: []string{"Y", "X", "Y"}}, {Key: "k", EnvUnset: []string{"X", "Y"}}},
		{{Key: "k", Env: map[string]string{}, EnvUnset: []string{}}, {Key: "k"}},
		{{Key: "k", Cwd: "/tmp/./x/"}, {Key: "k", Cwd: "/tmp/x"}},
	}
	for _, p := range same {
		if string(tb.Digest(p[0])) != string(tb.Digest(p[1])) {
			t.Errorf("%+v and %+v differ", p[0], p[1])
		}
	}
	one := 1
	if string(tb.Digest(Params{Key: "k"})) == string(tb.Digest(Params{Key: "k", Cols: &one})) {
		t.Error("cols not covered")
	}
	if string(tb.Digest(Params{Key: "k"})) == string(newTestTable().Digest(Params{Key: "k"})) {
		t.Error("two tables share a secret key")
	}
}
