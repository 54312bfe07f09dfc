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

// Publisher numbers the events of a Service, journals them and delivers
// them to its subscribers. The service's lock (s.mu, the lock of cond)
// guards it, except jmu, which serialises use of the journal (the
// publisher's writes and replays' reads, both outside s.mu).
type Publisher struct {
	mu     *sync.Mutex // the service's lock
	log    *slog.Logger
	source string              // the service's event source
	subs   *events.Subscribers // the service's subscribers
	queue  int                 // a subscriber's queue (Limits.EventQueue)
	// stopped reports how far the service's Shutdown came; mu is held.
	stopped func() (stopping, done bool)

	seq         int64            // the last number issued
	journal     *journal.Journal // nil: events are not journaled
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

// newPublisher returns the publisher of s's events, without a journal
// until StartJournal or AdoptJournal.
func newPublisher(s *Service) *Publisher {
	return &Publisher{mu: &s.mu, log: s.log, source: s.source, subs: s.subs, queue: s.cfg.Limits.EventQueue,
		stopped: func() (bool, bool) { return s.stopping, s.stopped }, cond: sync.NewCond(&s.mu)}
}

// Publisher is the publisher of s's events: its journal, replays from a
// cursor and the journal's status.
func (s *Service) Publisher() *Publisher { return s.pub }

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

func (p *Publisher) kickPublisher() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// StartJournal publishes events through j from now on: numbering continues
// after j.Base() and every journaled event is synced before it is
// published. Call it before serving (after Restore).
func (p *Publisher) StartJournal(j *journal.Journal) {
	p.mu.Lock()
	p.journal = j
	p.seq, p.published, p.reserved = j.Base(), j.Base(), j.Reserved()
	p.kick, p.done = make(chan struct{}, 1), make(chan struct{})
	p.mu.Unlock()
	go p.publish()
}

// JournalUnavailable records why the daemon runs without a journal (for
// status and doctor); AdoptJournal ends that.
func (p *Publisher) JournalUnavailable(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.openErr == "" {
		p.openErrAt = time.Now()
	}
	p.openErr = err.Error()
}

// AdoptJournal publishes through j from now on, in a daemon that has been
// serving without a journal because j could not be opened at start (a
// full disk; docs/events.md, "A full disk"). The journaled events issued
// meanwhile become a lost range of j, and numbering continues above them
// and above j.Base(). It reports false (and closes j) once the service
// stopped.
func (p *Publisher) AdoptJournal(j *journal.Journal) bool {
	p.mu.Lock()
	issued := p.seq
	p.mu.Unlock()
	// Numbers ahead of what was issued, outside s.mu; should more be
	// issued meanwhile, the publisher reserves again (numberAvailableLocked).
	if err := j.Reserve(max(j.Reserved(), issued+2*j.Lease())); err != nil {
		p.log.Warn("event journal: reserving numbers", "err", err)
	}
	p.mu.Lock()
	if stopping, done := p.stopped(); stopping || done || p.journal != nil {
		p.mu.Unlock()
		j.Close()
		return false
	}
	o := JournalOutage{BrokeAt: p.openErrAt, Error: p.openErr, RecoveredAt: time.Now()}
	if u := p.unjournaled; u.Last > 0 {
		j.MarkLost(u) // j is not shared yet: no jmu
		o.FirstSeq, o.LastSeq = u.First, u.Last
	}
	p.outages = append(p.outages, o)
	p.journal, p.openErr = j, ""
	p.seq = max(p.seq, j.Base())
	p.published, p.reserved = p.seq, j.Reserved()
	p.kick, p.done = make(chan struct{}, 1), make(chan struct{})
	p.mu.Unlock()
	p.log.Info("the event journal opened; events are journaled from now on", "base", p.seq,
		"lost_first", o.FirstSeq, "lost_last", o.LastSeq)
	go p.publish()
	p.kickPublisher() // writes the lost range
	return true
}

// numberAvailableLocked reports whether the next number may be issued;
// s.mu is held. Out of reserved numbers (the reservation could not be
// written) it marks publication broken: no number beyond a durable
// reservation is ever issued.
func (p *Publisher) numberAvailableLocked() bool {
	if p.journal == nil || p.seq < p.reserved {
		return true
	}
	err := newError(errcode.UnavailableJournal, map[string]any{"reserved": p.reserved},
		"no event number is reserved beyond %d: the sequence reservation cannot be written", p.reserved)
	p.subs.EndAll(err)
	p.breakAt(err, p.seq+1, p.log)
	p.kickPublisher() // the publisher tries to reserve again
	return false
}

// publishLocked numbers the event of data (journaled: its type is
// declared so) and queues it for the publisher goroutine, or delivers it
// at once without a journal; s.mu is held, so the events of one critical
// section reach every subscriber together and in order.
func (p *Publisher) publishLocked(data events.EventData, journaled bool) {
	if !p.numberAvailableLocked() {
		return // no number may be issued: the event is not published
	}
	p.seq++
	e := Event{Source: p.source, Seq: p.seq, Type: data.EventType(), Resource: data.EventResource(), Time: time.Now(), Data: data}
	if p.journal == nil {
		if p.openErr != "" && journaled { // a lost range if the journal opens later (AdoptJournal)
			if p.unjournaled.First == 0 {
				p.unjournaled.First = e.Seq
			}
			p.unjournaled.Last = e.Seq
		}
		p.subs.Deliver(&e)
		return
	}
	p.pending = append(p.pending, e) // published once journaled
	p.kickPublisher()
}

// subscribeLocked registers a subscription of the events after fence;
// s.mu is held. While no event number can be reserved, or once the
// service stopped, the subscription is ended at once.
func (p *Publisher) subscribeLocked(f Filter, fence int64) *Subscription {
	_, done := p.stopped()
	return p.subs.Add(f, fence, p.queue, done || p.broken != nil, p.broken)
}

// breakAt stops publication until the journal works again, from seq on:
// the caller ends every subscriber with err; the lock of p.cond is held.
func (p *Publisher) breakAt(err *Error, seq int64, log *slog.Logger) {
	if p.broken == nil {
		p.broken, p.brokenAt = err, seq
		log.Error("events cannot be journaled; none are published until they can", "err", err.Message)
	}
	p.cond.Broadcast()
}

// publish is the publisher goroutine.
func (p *Publisher) publish() {
	defer close(p.done)
	for range p.kick {
		p.mu.Lock()
		batch, seq, reserved := p.pending, p.seq, p.reserved
		p.pending = nil
		if len(batch) > maxBatch { // bounded bursts: a subscriber reads while the next batch syncs
			batch, p.pending = batch[:maxBatch], append([]Event(nil), batch[maxBatch:]...)
			p.kickPublisher()
		}
		_, done := p.stopped()
		stopped := done && len(p.pending) == 0
		p.mu.Unlock()
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
		p.jmu.Lock()
		var reserveErr error
		lease := p.journal.Lease()
		if seq > reserved-lease/2 { // keep at least half a lease in hand
			reserveErr = p.journal.Reserve(max(reserved, seq) + lease)
		}
		// A batch that cannot be written is still delivered: the journal
		// records it as lost (docs/events.md, "A full disk").
		err := p.journal.Append(recs)
		newReserved := p.journal.Reserved()
		p.jmu.Unlock()

		p.mu.Lock()
		p.reserved = newReserved
		p.noteAppend(err, recs, p.log)
		if p.broken != nil && p.seq < newReserved { // numbers again: what was not published is a break in the history
			p.log.Info("events are journaled again", "unpublished_from", p.brokenAt)
			p.jmu.Lock()
			_ = p.journal.Break(p.seq, "events were not journaled while the journal failed")
			p.jmu.Unlock()
			p.broken = nil
		}
		for i := range batch {
			p.subs.Deliver(&batch[i])
		}
		if len(batch) > 0 {
			p.published = batch[len(batch)-1].Seq
		}
		if err != nil || reserveErr != nil || p.broken != nil {
			_, done := p.stopped()
			p.scheduleRetry(done)
		} else {
			p.backoff = 0
		}
		p.cond.Broadcast()
		p.mu.Unlock()
		if stopped {
			return
		}
	}
}

// noteAppend opens, extends or closes an outage after an Append that
// returned err for recs; the lock of p.cond is held.
func (p *Publisher) noteAppend(err error, recs []journal.Record, log *slog.Logger) {
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
func (p *Publisher) scheduleRetry(stopped bool) {
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

// stop delivers what is queued and ends the publisher goroutine; s.mu is
// not held.
func (p *Publisher) stop() {
	p.mu.Lock()
	j := p.journal
	p.mu.Unlock()
	if j == nil {
		return
	}
	p.kickPublisher()
	<-p.done
	p.jmu.Lock()
	j.Close()
	p.jmu.Unlock()
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
func (p *Publisher) SubscribeAfter(f Filter, after int64) (*Subscription, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case after < 0:
		return nil, invalid("after_seq", "range", "after_seq must be 0 or more")
	case after > p.seq:
		return nil, newError(errcode.ConflictCursorAhead, map[string]any{"seq": p.seq},
			"seq %d has not been issued yet (the last is %d)", after, p.seq)
	case p.broken != nil:
		return nil, p.broken
	case p.journal == nil && after < p.seq:
		return nil, newError(errcode.ConflictHistoryLost, map[string]any{"oldest": p.seq + 1, "reason": "no_journal"},
			"events before %d are not kept: the daemon runs without an event journal", p.seq+1)
	case p.journal == nil:
		return p.subscribeLocked(f, after), nil
	}
	var replay []Event
	for from := after; ; {
		for p.published < from && p.broken == nil { // from is at most the last issued
			p.cond.Wait()
		}
		through := p.published
		if p.broken != nil {
			return nil, p.broken
		}
		if through > from {
			j := p.journal
			p.mu.Unlock() // disk reads outside s.mu
			evs, err := p.readJournal(j, f, from, through, MaxReplay-len(replay))
			p.mu.Lock()
			if err != nil {
				return nil, err
			}
			replay = append(replay, evs...)
		}
		if p.published == through && p.broken == nil {
			sub := p.subscribeLocked(f, through)
			sub.Replay = replay
			return sub, nil
		}
		from = through // more was published meanwhile: read that too
	}
}

// readJournal reads the journaled events of j matching f in (after,
// through], at most limit of them (conflict.replay_too_long beyond);
// p.jmu is taken, the lock of p.cond is not held.
func (p *Publisher) readJournal(j *journal.Journal, f Filter, after, through int64, limit int) ([]Event, *Error) {
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
func (p *Publisher) JournalStatus() JournalStatus {
	p.mu.Lock()
	st := JournalStatus{Enabled: p.journal != nil, Seq: p.seq, Published: p.published, Reserved: p.reserved}
	st.Outages = append([]JournalOutage{}, p.outages...)
	n := len(st.Outages)
	switch {
	case p.broken != nil:
		st.Error = p.broken.Message
	case n > 0 && st.Outages[n-1].RecoveredAt.IsZero():
		st.Error = "events cannot be journaled: " + st.Outages[n-1].Error
	case p.openErr != "":
		st.Error = p.openErr
	}
	j := p.journal
	p.mu.Unlock()
	if j != nil {
		p.jmu.Lock()
		st.Lost = j.Lost()
		st.RetainedAfter, st.BrokenThrough, _ = j.Coverage()
		st.Problems = append([]string{}, j.Problems()...)
		p.jmu.Unlock()
	}
	return st
}
