package term

import "sync"

// RowBudget bounds the row stores (history) of several terminals together,
// in the bytes a row store counts (row text plus style runs, as
// Config.HistoryBytes does). Terminals made with Config.Budget join it;
// Close leaves it.
//
// Policy (docs/rows.md, "Scrollback bounds"): when the terminals together
// hold more than the budget, the oldest rows are dropped from the terminal
// holding the most bytes, then the next largest, until the total is back
// under the budget. A terminal pushing a row while the budget is exceeded
// and holding more than its fair share (the budget divided by the number
// of terminals) drops its own oldest rows at once; other excess is dropped
// by the budget's trimmer goroutine, which takes one terminal's lock at a
// time. Dropping advances that terminal's oldest row number, as its own
// bounds do.
type RowBudget struct {
	max int64

	mu      sync.Mutex // after any Terminal.mu; never held while taking one
	members map[*Terminal]int64
	used    int64
	kick    chan struct{}
	started bool
}

// NewRowBudget returns a budget of maxBytes (> 0) for the row stores of
// the terminals that join it.
func NewRowBudget(maxBytes int64) *RowBudget {
	return &RowBudget{max: maxBytes, members: map[*Terminal]int64{}, kick: make(chan struct{}, 1)}
}

// Max is the budget in bytes.
func (b *RowBudget) Max() int64 { return b.max }

// Used is the bytes the members' row stores hold together.
func (b *RowBudget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Members is the number of terminals in the budget.
func (b *RowBudget) Members() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.members)
}

// chargeSlack is how far a terminal's row store may grow or shrink, in
// bytes, before a pushed row reports its size to the budget: rows pushed
// within one Write are charged together (the budget's lock and table are
// then touched once per few KiB of rows, not per row), and every Write, and
// every move of the emulator's scrollback into the store, ends with the
// size charged exactly (settleLocked).
const chargeSlack = 4 << 10

// chargeSoonLocked charges t's row store size once it moved chargeSlack
// bytes from what was last charged; t.mu is held.
func (t *Terminal) chargeSoonLocked() {
	if t.budget == nil {
		return
	}
	if d := t.hist.bytes - t.charged; d >= chargeSlack || -d >= chargeSlack {
		t.chargeLocked()
	}
}

// settleLocked charges t's row store size if it changed since it was last
// charged; t.mu is held.
func (t *Terminal) settleLocked() {
	if t.budget != nil && t.hist.bytes != t.charged {
		t.chargeLocked()
	}
}

// chargeLocked records t's row store size after a change and keeps the
// total within the budget as the policy says; t.mu is held.
func (t *Terminal) chargeLocked() {
	b := t.budget
	if b == nil || t.budgetLeft {
		return
	}
	defer func() { t.charged = t.hist.bytes }()
	b.mu.Lock()
	over := b.setLocked(t, int64(t.hist.bytes))
	share := b.max / int64(len(b.members))
	b.mu.Unlock()
	if !over {
		return
	}
	for over && t.hist.n > 0 && int64(t.hist.bytes) > share {
		t.hist.dropOldest()
		b.mu.Lock()
		over = b.setLocked(t, int64(t.hist.bytes))
		b.mu.Unlock()
	}
	if over {
		b.wake()
	}
}

// setLocked records t's size; b.mu is held. It reports whether the total
// exceeds the budget.
func (b *RowBudget) setLocked(t *Terminal, n int64) bool {
	b.used += n - b.members[t]
	b.members[t] = n
	return b.used > b.max
}

// leaveBudgetLocked takes t out of its budget (Close); t.mu is held.
func (t *Terminal) leaveBudgetLocked() {
	if t.budget == nil || t.budgetLeft {
		return
	}
	t.budgetLeft = true
	b := t.budget
	b.mu.Lock()
	b.used -= b.members[t]
	delete(b.members, t)
	b.mu.Unlock()
}

// wake lets the trimmer run (starting it the first time).
func (b *RowBudget) wake() {
	b.mu.Lock()
	if !b.started {
		b.started = true
		go b.trimmer()
	}
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// trimmer drops the oldest rows of the largest terminals while the total
// exceeds the budget, down to 1/64 below it, so that a full budget is not
// looked through again for every row added.
func (b *RowBudget) trimmer() {
	for range b.kick {
		for {
			b.mu.Lock()
			var victim *Terminal
			var most int64
			for t, n := range b.members {
				if n > most {
					victim, most = t, n
				}
			}
			excess := b.used - b.max
			b.mu.Unlock()
			if excess <= 0 || victim == nil {
				break
			}
			victim.trimFor(excess + b.max/64)
		}
	}
}

// trimFor drops t's oldest rows until n bytes were dropped or none are
// left; t.mu is not held.
func (t *Terminal) trimFor(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.budgetLeft {
		return
	}
	before := int64(t.hist.bytes)
	for t.hist.n > 0 && before-int64(t.hist.bytes) < n {
		t.hist.dropOldest()
	}
	b := t.budget
	b.mu.Lock()
	b.setLocked(t, int64(t.hist.bytes))
	b.mu.Unlock()
	t.charged = t.hist.bytes
}
