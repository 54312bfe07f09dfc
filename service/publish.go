package service

import (
	"encoding/json"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/signaltty/signaltty/journal"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// Publication through the event journal (docs/events.md, "Journal"). With
// a journal, emit numbers an event under s.mu and queues it; the publisher
// goroutine writes the journaled events of each batch and syncs them (one
// fdatasync per batch: the events of one state change, and whatever queued
// meanwhile, are committed together), reserves numbers ahead, and only then
// delivers the batch, in seq order, to the subscribers. A batch that
// cannot be written (a full disk) is delivered all the same and becomes a
// lost range of the journal; the publisher retries until a write succeeds
// (docs/events.md, "A full disk"). No disk work ever happens under s.mu.
// Without a journal (persistence off), emit delivers at once and numbers
// start from 0 at every start.

// MaxReplay is the most events a subscription from a cursor replays.
const MaxReplay = 65536

// maxBatch is the most events one journal write (and one delivery) holds.
const maxBatch = 1024

// publisher is the publication state of a Service; s.mu guards it, except
// jmu, which serialises use of the journal (the publisher's writes and
// replays' reads, both outside s.mu).
type publisher struct {
	pending     []Event
	kick        chan struct{}
	done        chan struct{}
	published   int64           // events through this seq were delivered
	reserved    int64           // numbers through this seq may be issued
	broken      *Error          // unavailable.journal while events cannot be made durable
	brokenAt    int64           // the first seq not published because of it
	cond        *sync.Cond      // broadcast when published or broken changes
	openErr     string          // why there is no journal, if it could not be opened
	openErrAt   time.Time       // when it first could not be opened
	unjournaled journal.Range   // the first and last journaled-type events issued without a journal
	outages     []JournalOutage // the latest maxOutages, oldest first; the last is open while RecoveredAt is zero
	retrying    bool            // a retry kick is scheduled
	backoff     time.Duration   // the next retry's delay
	jmu         sync.Mutex
}

// JournalOutage is a time the journal could not be written (a full or
// failing state file system): the events were delivered live, and the
// journaled ones among FirstSeq..LastSeq are a lost range of the journal
// (docs/events.md, "A full disk").
type JournalOutage struct {
	BrokeAt     time.Time
	FirstSeq    int64     // the first seq not written
	LastSeq     int64     // the last seq not written (so far, while it lasts)
	RecoveredAt time.Time // zero while it lasts
	Error       string    // the first failure
}

// maxOutages is how many outages status keeps.
const maxOutages = 8

// Journal retries while it cannot be written: after 1 s, doubling to 5 s.
const (
	journalRetryFirst = time.Second
	journalRetryMax   = 5 * time.Second
)

func (p *publisher) kickPublisher() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// StartJournal publishes events through j from now on: numbering continues
// after j.Base() and every journaled event is synced before it is
// published. Call it before serving (after Restore).
func (s *Service) StartJournal(j *journal.Journal) {
	s.mu.Lock()
	s.journal = j
	s.seq, s.pub.published, s.pub.reserved = j.Base(), j.Base(), j.Reserved()
	s.pub.kick, s.pub.done = make(chan struct{}, 1), make(chan struct{})
	s.mu.Unlock()
	go s.publish()
}

// JournalUnavailable records why the daemon runs without a journal (for
// status and doctor); AdoptJournal ends that.
func (s *Service) JournalUnavailable(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pub.openErr == "" {
		s.pub.openErrAt = time.Now()
	}
	s.pub.openErr = err.Error()
}

// AdoptJournal publishes through j from now on, in a daemon that has been
// serving without a journal because j could not be opened at start (a
// full disk; docs/events.md, "A full disk"). The journaled events issued
// meanwhile become a lost range of j, and numbering continues above them
// and above j.Base(). It reports false (and closes j) once the service
// stopped.
func (s *Service) AdoptJournal(j *journal.Journal) bool {
	s.mu.Lock()
	issued := s.seq
	s.mu.Unlock()
	// Numbers ahead of what was issued, outside s.mu; should more be
	// issued meanwhile, the publisher reserves again (numberAvailable).
	if err := j.Reserve(max(j.Reserved(), issued+2*j.Lease())); err != nil {
		s.log.Warn("event journal: reserving numbers", "err", err)
	}
	s.mu.Lock()
	if s.stopping || s.stopped || s.journal != nil {
		s.mu.Unlock()
		j.Close()
		return false
	}
	o := JournalOutage{BrokeAt: s.pub.openErrAt, Error: s.pub.openErr, RecoveredAt: time.Now()}
	if u := s.pub.unjournaled; u.Last > 0 {
		j.MarkLost(u) // j is not shared yet: no jmu
		o.FirstSeq, o.LastSeq = u.First, u.Last
	}
	s.pub.outages = append(s.pub.outages, o)
	s.journal, s.pub.openErr = j, ""
	s.seq = max(s.seq, j.Base())
	s.pub.published, s.pub.reserved = s.seq, j.Reserved()
	s.pub.kick, s.pub.done = make(chan struct{}, 1), make(chan struct{})
	s.mu.Unlock()
	s.log.Info("the event journal opened; events are journaled from now on", "base", s.seq,
		"lost_first", o.FirstSeq, "lost_last", o.LastSeq)
	go s.publish()
	s.pub.kickPublisher() // writes the lost range
	return true
}

// numberAvailable reports whether emit may issue the next number; s.mu is
// held. Out of reserved numbers (the reservation could not be written) it
// marks publication broken: no number beyond a durable reservation is
// ever issued.
func (s *Service) numberAvailable() bool {
	if s.journal == nil || s.seq < s.pub.reserved {
		return true
	}
	err := newError(errcode.UnavailableJournal, map[string]any{"reserved": s.pub.reserved},
		"no event number is reserved beyond %d: the sequence reservation cannot be written", s.pub.reserved)
	s.subs.EndAll(err)
	s.pub.breakAt(err, s.seq+1, s.log)
	s.pub.kickPublisher() // the publisher tries to reserve again
	return false
}

// breakAt stops publication until the journal works again, from seq on:
// the caller ends every subscriber with err; the lock of p.cond is held.
func (p *publisher) breakAt(err *Error, seq int64, log *slog.Logger) {
	if p.broken == nil {
		p.broken, p.brokenAt = err, seq
		log.Error("events cannot be journaled; none are published until they can", "err", err.Message)
	}
	p.cond.Broadcast()
}

// publish is the publisher goroutine.
func (s *Service) publish() {
	defer close(s.pub.done)
	for range s.pub.kick {
		s.mu.Lock()
		batch, seq, reserved := s.pub.pending, s.seq, s.pub.reserved
		s.pub.pending = nil
		if len(batch) > maxBatch { // bounded bursts: a subscriber reads while the next batch syncs
			batch, s.pub.pending = batch[:maxBatch], append([]Event(nil), batch[maxBatch:]...)
			s.pub.kickPublisher()
		}
		stopped := s.stopped && len(s.pub.pending) == 0
		s.mu.Unlock()
		// A goroutine that waited for s.mu (a request handler, as the
		// kick came from its own critical section) was just readied onto
		// this P; let it run now instead of leaving it queued behind the
		// journal's blocking write and sync below, which do not hand the
		// P over until the runtime notices (docs/events.md, "Journal").
		runtime.Gosched()

		recs := make([]journal.Record, 0, len(batch))
		for _, e := range batch {
			if spec, _ := events.Declared(e.Type); spec.Journaled {
				data, _ := json.Marshal(e.Data)
				recs = append(recs, journal.Record{Seq: e.Seq, Source: e.Source, Type: string(e.Type),
					Resource: e.Resource, Time: e.Time, Data: data})
			}
		}
		s.pub.jmu.Lock()
		var reserveErr error
		lease := s.journal.Lease()
		if seq > reserved-lease/2 { // keep at least half a lease in hand
			reserveErr = s.journal.Reserve(max(reserved, seq) + lease)
		}
		// A batch that cannot be written is still delivered: the journal
		// records it as lost (docs/events.md, "A full disk").
		err := s.journal.Append(recs)
		newReserved := s.journal.Reserved()
		s.pub.jmu.Unlock()

		s.mu.Lock()
		s.pub.reserved = newReserved
		s.pub.noteAppend(err, recs, s.log)
		if s.pub.broken != nil && s.seq < newReserved { // numbers again: what was not published is a break in the history
			s.log.Info("events are journaled again", "unpublished_from", s.pub.brokenAt)
			s.pub.jmu.Lock()
			_ = s.journal.Break(s.seq, "events were not journaled while the journal failed")
			s.pub.jmu.Unlock()
			s.pub.broken = nil
		}
		for i := range batch {
			s.subs.Deliver(&batch[i])
		}
		if len(batch) > 0 {
			s.pub.published = batch[len(batch)-1].Seq
		}
		if err != nil || reserveErr != nil || s.pub.broken != nil {
			s.pub.scheduleRetry(s.stopped)
		} else {
			s.pub.backoff = 0
		}
		s.pub.cond.Broadcast()
		s.mu.Unlock()
		if stopped {
			return
		}
	}
}

// noteAppend opens, extends or closes an outage after an Append that
// returned err for recs; the lock of p.cond is held.
func (p *publisher) noteAppend(err error, recs []journal.Record, log *slog.Logger) {
	n := len(p.outages)
	open := n > 0 && p.outages[n-1].RecoveredAt.IsZero()
	switch {
	case err != nil && !open:
		o := JournalOutage{BrokeAt: time.Now(), Error: err.Error()}
		if len(recs) > 0 {
			o.FirstSeq, o.LastSeq = recs[0].Seq, recs[len(recs)-1].Seq
		}
		if n == maxOutages {
			p.outages = append(p.outages[:0], p.outages[1:]...)
		}
		p.outages = append(p.outages, o)
		log.Error("events cannot be journaled; they are delivered live and recorded as lost from the journal",
			"first_seq", o.FirstSeq, "err", err)
	case err != nil && len(recs) > 0:
		o := &p.outages[n-1]
		if o.FirstSeq == 0 {
			o.FirstSeq = recs[0].Seq
		}
		o.LastSeq = recs[len(recs)-1].Seq
	case err == nil && open:
		o := &p.outages[n-1]
		o.RecoveredAt = time.Now()
		log.Info("events are journaled again", "lost_first", o.FirstSeq, "lost_last", o.LastSeq,
			"broke_at", o.BrokeAt.UTC().Format(time.RFC3339))
	}
}

// scheduleRetry kicks the publisher again after the backoff, so a
// journal that cannot be written is retried without any event, unless the
// service stopped; the lock of p.cond is held.
func (p *publisher) scheduleRetry(stopped bool) {
	if p.retrying || stopped {
		return
	}
	p.backoff = min(max(2*p.backoff, journalRetryFirst), journalRetryMax)
	p.retrying = true
	time.AfterFunc(p.backoff, func() {
		p.cond.L.Lock()
		p.retrying = false
		p.cond.L.Unlock()
		p.kickPublisher()
	})
}

// stopPublisher delivers what is queued and ends the publisher; s.mu is
// not held.
func (s *Service) stopPublisher() {
	s.mu.Lock()
	j := s.journal
	s.mu.Unlock()
	if j == nil {
		return
	}
	s.pub.kickPublisher()
	<-s.pub.done
	s.pub.jmu.Lock()
	j.Close()
	s.pub.jmu.Unlock()
}

// SubscribeAfter starts a subscription that first replays every journaled
// event matching f with a seq above after (Subscription.Replay), then
// continues live; no event is delivered twice or left out across the
// hand-off. Errors, with nothing replayed: conflict.cursor_ahead (after is
// beyond the last number issued), conflict.history_lost (events after the
// cursor were rotated away, data.oldest is the oldest seq kept; or were
// published but not written, data.first..data.last), unavailable.journal
// (the journal cannot prove the history after the cursor complete, or no
// number can be reserved), conflict.replay_too_long (more than MaxReplay
// events).
func (s *Service) SubscribeAfter(f Filter, after int64) (*Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case after < 0:
		return nil, invalid("after_seq", "range", "after_seq must be 0 or more")
	case after > s.seq:
		return nil, newError(errcode.ConflictCursorAhead, map[string]any{"seq": s.seq},
			"seq %d has not been issued yet (the last is %d)", after, s.seq)
	case s.pub.broken != nil:
		return nil, s.pub.broken
	case s.journal == nil && after < s.seq:
		return nil, newError(errcode.ConflictHistoryLost, map[string]any{"oldest": s.seq + 1, "reason": "no_journal"},
			"events before %d are not kept: the daemon runs without an event journal", s.seq+1)
	case s.journal == nil:
		return s.subscribeLocked(f, after, false), nil
	}
	var replay []Event
	for from := after; ; {
		for s.pub.published < from && s.pub.broken == nil { // from is at most the last issued
			s.pub.cond.Wait()
		}
		through := s.pub.published
		if s.pub.broken != nil {
			return nil, s.pub.broken
		}
		if through > from {
			j := s.journal
			s.mu.Unlock() // disk reads outside s.mu
			evs, err := s.pub.readJournal(j, f, from, through, MaxReplay-len(replay))
			s.mu.Lock()
			if err != nil {
				return nil, err
			}
			replay = append(replay, evs...)
		}
		if s.pub.published == through && s.pub.broken == nil {
			sub := s.subscribeLocked(f, through, false)
			sub.Replay = replay
			return sub, nil
		}
		from = through // more was published meanwhile: read that too
	}
}

// readJournal reads the journaled events of j matching f in (after,
// through], at most limit of them (conflict.replay_too_long beyond);
// p.jmu is taken, the lock of p.cond is not held.
func (p *publisher) readJournal(j *journal.Journal, f Filter, after, through int64, limit int) ([]Event, *Error) {
	p.jmu.Lock()
	defer p.jmu.Unlock()
	retained, broken, _ := j.Coverage()
	switch {
	case after < retained:
		return nil, newError(errcode.ConflictHistoryLost, map[string]any{"oldest": retained + 1},
			"events up to %d were rotated out of the journal; the oldest kept is %d", retained, retained+1)
	case after < broken:
		return nil, newError(errcode.UnavailableJournal, map[string]any{"broken_through": broken},
			"the journal cannot prove the events after %d complete (its history through %d is broken)", after, broken)
	}
	for _, g := range j.Lost() {
		if after < g.Last {
			return nil, lostRange(g)
		}
	}
	recs, err := j.Read(after, through, MaxReplay)
	if err != nil {
		return nil, newError(errcode.UnavailableJournal, nil, "reading the journal: %v", err)
	}
	var out []Event
	for _, r := range recs {
		e := Event{Source: r.Source, Seq: r.Seq, Type: events.EventType(r.Type), Resource: r.Resource, Time: r.Time,
			Data: journaledData(r.Data)}
		if f.Match(&e) {
			if len(out) == limit {
				return nil, newError(errcode.ConflictReplayTooLong, map[string]any{"limit": MaxReplay},
					"more than %d events match after seq %d: subscribe with a snapshot instead", MaxReplay, after)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// lostRange is conflict.history_lost for a cursor before the end of g,
// events that were published but could not be journaled.
func lostRange(g journal.Range) *Error {
	return newError(errcode.ConflictHistoryLost, map[string]any{"first": g.First, "last": g.Last, "reason": "not_journaled"},
		"the events %d..%d were delivered live but could not be written to the journal (the state file system was full or failing): resume after %d, or subscribe with a snapshot",
		g.First, g.Last, g.Last)
}

// journaledData is an event's data as read back from the journal: the
// JSON it was written as.
type journaledData json.RawMessage

func (d journaledData) MarshalJSON() ([]byte, error) { return d, nil }
func (journaledData) EventType() events.EventType    { return "" }
func (journaledData) EventResource() string          { return "" }

// JournalStatus describes the event journal for Server.GetStatus.
type JournalStatus struct {
	Enabled       bool
	Seq           int64           // the last number issued
	Published     int64           // events through it were delivered (journaled ones synced first)
	Reserved      int64           // the durable reservation
	RetainedAfter int64           // events up to it were rotated away
	BrokenThrough int64           // a cursor below it cannot be replayed
	Lost          []journal.Range // journaled events published but not written
	Outages       []JournalOutage // this daemon's latest, oldest first
	Problems      []string        // what the journal's Open found
	Error         string          // set while events cannot be journaled
}

// JournalStatus returns the journal's state.
func (s *Service) JournalStatus() JournalStatus {
	s.mu.Lock()
	st := JournalStatus{Enabled: s.journal != nil, Seq: s.seq, Published: s.pub.published, Reserved: s.pub.reserved}
	st.Outages = append([]JournalOutage{}, s.pub.outages...)
	n := len(st.Outages)
	switch {
	case s.pub.broken != nil:
		st.Error = s.pub.broken.Message
	case n > 0 && st.Outages[n-1].RecoveredAt.IsZero():
		st.Error = "events cannot be journaled: " + st.Outages[n-1].Error
	case s.pub.openErr != "":
		st.Error = s.pub.openErr
	}
	j := s.journal
	s.mu.Unlock()
	if j != nil {
		s.pub.jmu.Lock()
		st.Lost = j.Lost()
		st.RetainedAfter, st.BrokenThrough, _ = j.Coverage()
		st.Problems = append([]string{}, j.Problems()...)
		s.pub.jmu.Unlock()
	}
	return st
}
