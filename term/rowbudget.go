package term

import "github.com/signaltty/signaltty/term/rowstore"

// RowBudget bounds the row stores (history) of several terminals together,
// in the bytes a row store counts (row text plus style runs, as
// Config.HistoryBytes does); see rowstore.Budget for the policy. Terminals
// made with Config.Budget join it; Close leaves it. Dropping advances that
// terminal's oldest row number, as its own bounds do.
type RowBudget = rowstore.Budget

// NewRowBudget returns a budget of maxBytes (> 0) for the row stores of
// the terminals that join it.
func NewRowBudget(maxBytes int64) *RowBudget { return rowstore.NewBudget(maxBytes) }

// chargeSlack is how far a terminal's row store may grow or shrink, in
// bytes, before a pushed row reports its size to the budget: rows pushed
// within one Write are charged together (the budget's lock and table are
// then touched once per few KiB of rows, not per row), and every Write, and
// every move of the emulator's scrollback into the store, ends with the
// size charged exactly (settleLocked).
const chargeSlack = 4 << 10

// budgetMember is a terminal as a member of its row budget: the budget's
// trimmer drops its oldest rows through it.
type budgetMember struct{ t *Terminal }

// chargeSoonLocked charges t's row store size once it moved chargeSlack
// bytes from what was last charged; t.mu is held.
func (t *Terminal) chargeSoonLocked() {
	if t.budget == nil {
		return
	}
	if d := t.hist.Bytes() - t.charged; d >= chargeSlack || -d >= chargeSlack {
		t.chargeLocked()
	}
}

// settleLocked charges t's row store size if it changed since it was last
// charged; t.mu is held.
func (t *Terminal) settleLocked() {
	if t.budget != nil && t.hist.Bytes() != t.charged {
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
	defer func() { t.charged = t.hist.Bytes() }()
	over, share := b.Set(&t.member, int64(t.hist.Bytes()))
	if !over {
		return
	}
	for over && t.hist.Len() > 0 && int64(t.hist.Bytes()) > share {
		t.hist.DropOldest()
		over, _ = b.Set(&t.member, int64(t.hist.Bytes()))
	}
	if over {
		b.Wake()
	}
}

// leaveBudgetLocked takes t out of its budget (Close); t.mu is held.
func (t *Terminal) leaveBudgetLocked() {
	if t.budget == nil || t.budgetLeft {
		return
	}
	t.budgetLeft = true
	t.budget.Leave(&t.member)
}

// TrimFor drops the terminal's oldest rows until n bytes were dropped or
// none are left; its lock is not held.
func (m *budgetMember) TrimFor(n int64) {
	t := m.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.budgetLeft {
		return
	}
	before := int64(t.hist.Bytes())
	for t.hist.Len() > 0 && before-int64(t.hist.Bytes()) < n {
		t.hist.DropOldest()
	}
	t.budget.Set(m, int64(t.hist.Bytes()))
	t.charged = t.hist.Bytes()
}
