package tests

// The event journal on a full state file system (docs/events.md, "A full
// disk"): every event is still delivered live, what could not be written
// is recorded as a range the journal does not hold, and the journal
// comes back by itself once space returns.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// journalState is status.journal as the tests here read it.
type journalState struct {
	Enabled bool    `json:"enabled"`
	Seq     int64   `json:"seq"`
	Error   *string `json:"error"`
	Lost    []struct {
		First int64 `json:"first"`
		Last  int64 `json:"last"`
	} `json:"lost"`
	Outages []struct {
		BrokeAt     string  `json:"broke_at"`
		FirstSeq    int64   `json:"first_seq"`
		RecoveredAt *string `json:"recovered_at"`
	} `json:"outages"`
}

// oneSegmentPerBatch makes the journal start a new segment file for every
// batch, so the first batch after the fill needs new space: tmpfs hands out
// whole pages, and the last page of a segment being appended to has room
// left after the file system is full.
var oneSegmentPerBatch = []string{"SIGNALTTY_JOURNAL_SEGMENT_BYTES=1", "SIGNALTTY_JOURNAL_SEGMENTS=100000"}

func statusJournal(t *testing.T, d *harness.Daemon) journalState {
	t.Helper()
	var st struct {
		Status struct {
			Journal journalState `json:"journal"`
		} `json:"status"`
	}
	d.JSON(t, &st, "status")
	return st.Status.Journal
}

// createWhileFull creates workspaces while the file system is full; live
// must receive each one's event. It returns their seqs.
func createWhileFull(t *testing.T, d *harness.Daemon, live *harness.Stream, names ...string) []int64 {
	t.Helper()
	var seqs []int64
	for _, n := range names {
		w := d.CreateWorkspace(t, n)
		e := live.WaitFor(t, harness.PollTimeout, "workspace.created of "+n, func(e harness.Event) bool {
			return e.Type == "workspace.created" && e.Resource == w.ID
		})
		seqs = append(seqs, e.Seq)
	}
	if err := live.Err(); err != nil {
		t.Fatalf("the live stream ended while the disk was full: %v", err)
	}
	return seqs
}

// waitJournalRecovered polls status until the journal works again (it
// freeSpaceAndCreate removes filler, waits until the journal is back with
// seqs[0]..seqs[1] as its one lost range, creates a workspace and returns
// its workspace.created event as live saw it.
func freeSpaceAndCreate(t *testing.T, d *harness.Daemon, live *harness.Stream, filler string, seqs []int64) harness.Event {
	t.Helper()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	j := waitJournalRecovered(t, d)
	if len(j.Lost) != 1 || j.Lost[0].First != seqs[0] || j.Lost[0].Last != seqs[1] {
		t.Errorf("status.journal.lost %+v, want %d..%d", j.Lost, seqs[0], seqs[1])
	}
	after := d.CreateWorkspace(t, "after")
	return live.WaitFor(t, harness.PollTimeout, "workspace.created of after", func(e harness.Event) bool {
		return e.Type == "workspace.created" && e.Resource == after.ID
	})
}

// retries at most 5 s apart).
func waitJournalRecovered(t *testing.T, d *harness.Daemon) journalState {
	t.Helper()
	var j journalState
	harness.Eventually(t, 3*harness.PollTimeout, "the journal works again", func() (bool, string) {
		j = statusJournal(t, d)
		if j.Error != nil {
			return false, *j.Error
		}
		return j.Enabled, "journal not enabled"
	})
	return j
}

// checkHistoryLost resumes from after and wants conflict.history_lost
// naming exactly first..last.
func checkHistoryLost(t *testing.T, d *harness.Daemon, after, first, last int64) {
	t.Helper()
	e := d.Fail(t, "conflict.history_lost", 5, "events", "--follow", "--after", strconv.FormatInt(after, 10))
	if e.Data["first"] != float64(first) || e.Data["last"] != float64(last) {
		t.Errorf("a resume after %d: history_lost %v, want first %d last %d", after, e.Data, first, last)
	}
}

func TestFullDiskDeliversEveryEventLiveAndRecordsTheGap(t *testing.T) {
	t.Parallel()
	dir := stateTmpfs(t, "4m")
	d := harness.Start(t, harness.Options{Dir: dir, Env: oneSegmentPerBatch})
	d.CreateWorkspace(t, "before")
	before := d.Status(t).Seq
	live := d.Subscribe(t, nil, nil)

	filler := filepath.Join(dir, "state", "filler")
	fill(t, filler)
	seqs := createWhileFull(t, d, live, "full-1", "full-2", "full-3")
	first, last := seqs[0], seqs[len(seqs)-1]
	if j := statusJournal(t, d); j.Error == nil || !strings.Contains(*j.Error, "no space left") {
		t.Errorf("status.journal while the disk is full: %+v", j)
	}
	if r := d.CLI(t, "doctor"); !strings.Contains(r.Stdout, "! events cannot be journaled since") || strings.Contains(r.Stdout, "found at start") {
		t.Errorf("doctor while the disk is full:\n%s", r.Stdout)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	j := waitJournalRecovered(t, d)
	if len(j.Lost) != 1 || j.Lost[0].First != first || j.Lost[0].Last != last {
		t.Errorf("status.journal.lost %+v, want %d..%d", j.Lost, first, last)
	}
	if len(j.Outages) != 1 || j.Outages[0].FirstSeq != first || j.Outages[0].RecoveredAt == nil {
		t.Errorf("status.journal.outages %+v", j.Outages)
	}
	doc := d.CLI(t, "doctor").Stdout
	if !strings.Contains(doc, "broke at ") || !strings.Contains(doc, "recovered at ") || strings.Contains(doc, "found at start") {
		t.Errorf("doctor after space returned:\n%s", doc)
	}
	after := d.CreateWorkspace(t, "after")
	live.WaitFor(t, harness.PollTimeout, "workspace.created of after", func(e harness.Event) bool {
		return e.Type == "workspace.created" && e.Resource == after.ID
	})
	if err := live.Err(); err != nil {
		t.Fatalf("the live stream ended: %v", err)
	}

	// A resume from before or inside the gap is told exactly what is missing.
	checkHistoryLost(t, d, before, first, last)
	checkHistoryLost(t, d, first, first, last)
	// A resume from its end replays what followed.
	sub := d.BackgroundCLI(t, "--json", "events", "--follow", "--after", strconv.FormatInt(last, 10))
	sub.WaitBlocked(t)
	d.Stop(t)
	evs, code := followLines(t, sub.Result(t, harness.CallTimeout).Stdout)
	if code != "" && code != "unavailable.shutdown" {
		t.Fatalf("the resume after the gap ended with %s", code)
	}
	found := false
	for _, e := range evs {
		if e.Seq <= last {
			t.Errorf("the resume after %d replayed seq %d", last, e.Seq)
		}
		found = found || e.Resource == after.ID
	}
	if !found {
		t.Errorf("the resume after the gap lacks workspace %s: %+v", after.ID, evs)
	}
}

func TestDaemonStartedOnAFullDiskJournalsAgainWhenSpaceReturns(t *testing.T) {
	t.Parallel()
	dir := stateTmpfs(t, "4m")
	d := harness.Start(t, harness.Options{Dir: dir, Env: oneSegmentPerBatch})
	d.CreateWorkspace(t, "before")
	d.Stop(t)

	filler := filepath.Join(dir, "state", "filler")
	fill(t, filler)
	d = harness.Start(t, harness.Options{Dir: dir, Env: oneSegmentPerBatch})
	before := d.Status(t).Seq
	live := d.Subscribe(t, nil, nil)
	seqs := createWhileFull(t, d, live, "full-1", "full-2")
	e := freeSpaceAndCreate(t, d, live, filler, seqs)
	if _, ok := journalSeqs(t, filepath.Join(dir, "state", "signaltty", "events"))[e.Seq]; !ok {
		t.Errorf("seq %d, published after space returned, is not in the journal", e.Seq)
	}
	if doc := d.CLI(t, "doctor").Stdout; !strings.Contains(doc, "recovered at ") {
		t.Errorf("doctor after space returned:\n%s", doc)
	}
	checkHistoryLost(t, d, before, seqs[0], seqs[1])
	d.Stop(t)

	// The gap is kept across a restart.
	d = harness.Start(t, harness.Options{Dir: dir, Env: oneSegmentPerBatch})
	checkHistoryLost(t, d, before, seqs[0], seqs[1])
}

// A state directory that never had a journal cannot get one on a full
// disk (the sequence file needs space): the daemon serves without one,
// opens it once space returns, and records what it published meanwhile.
func TestDaemonWithoutAJournalOpensItWhenSpaceReturns(t *testing.T) {
	t.Parallel()
	dir := stateTmpfs(t, "4m")
	filler := filepath.Join(dir, "state", "filler")
	fill(t, filler)
	d := harness.Start(t, harness.Options{Dir: dir})
	if j := statusJournal(t, d); j.Enabled || j.Error == nil {
		t.Fatalf("status.journal on a full disk without a journal: %+v", j)
	}
	live := d.Subscribe(t, nil, nil)
	seqs := createWhileFull(t, d, live, "full-1", "full-2")
	e := freeSpaceAndCreate(t, d, live, filler, seqs)
	if e.Seq <= seqs[1] {
		t.Errorf("seq %d after the journal opened, %d before", e.Seq, seqs[1])
	}
	if _, ok := journalSeqs(t, filepath.Join(dir, "state", "signaltty", "events"))[e.Seq]; !ok {
		t.Errorf("seq %d, published after the journal opened, is not in it", e.Seq)
	}
	if doc := d.CLI(t, "doctor").Stdout; !strings.Contains(doc, "recovered at ") {
		t.Errorf("doctor after the journal opened:\n%s", doc)
	}
	checkHistoryLost(t, d, 0, seqs[0], seqs[1])
	if err := live.Err(); err != nil {
		t.Fatalf("the live stream ended: %v", err)
	}
}
