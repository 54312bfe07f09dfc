package rowstore

import "sync"

// Member is a row store in a Budget, as the budget's trimmer sees it.
type Member interface {
	// TrimFor drops the member's oldest rows until n bytes were dropped or
	// none are left, and records its new size with Set. It is called
	// without the budget's lock held and takes the member's own lock.
	TrimFor(n int64)
}

// Budget bounds the row stores of several members together, in the bytes a
// row store counts (Row.Size, summed).
//
// Policy (docs/rows.md, "Scrollback bounds"): when the members together
// hold more than the budget, the oldest rows are dropped from the member
// holding the most bytes, then the next largest, until the total is back
// under the budget. A member that finds the budget exceeded when it
// records its size, and holds more than its fair share (the budget divided
// by the number of members), drops its own oldest rows at once; other
// excess is dropped by the budget's trimmer goroutine (Wake), which calls
// one member's TrimFor at a time.
type Budget struct {
	max int64

	mu      sync.Mutex // after any member's lock; never held while taking one
	members map[Member]int64
	used    int64
	kick    chan struct{}
	started bool
}

// NewBudget returns a budget of maxBytes (> 0) for the row stores of the
// members that join it.
func NewBudget(maxBytes int64) *Budget {
	return &Budget{max: maxBytes, members: map[Member]int64{}, kick: make(chan struct{}, 1)}
}

// Max is the budget in bytes.
func (b *Budget) Max() int64 { return b.max }

// Used is the bytes the members' row stores hold together.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Members is the number of members in the budget.
func (b *Budget) Members() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.members)
}

// Set records m's size in bytes (joining the budget the first time) and
// reports whether the total exceeds the budget, and the fair share in
// bytes: the budget divided by the number of members.
func (b *Budget) Set(m Member, n int64) (over bool, share int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += n - b.members[m]
	b.members[m] = n
	return b.used > b.max, b.max / int64(len(b.members))
}

// Leave takes m out of the budget.
func (b *Budget) Leave(m Member) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= b.members[m]
	delete(b.members, m)
}

// Wake lets the trimmer run (starting it the first time).
func (b *Budget) Wake() {
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

// trimmer drops the oldest rows of the largest members while the total
// exceeds the budget, down to 1/64 below it, so that a full budget is not
// looked through again for every row added.
func (b *Budget) trimmer() {
	for range b.kick {
		for {
			b.mu.Lock()
			var victim Member
			var most int64
			for m, n := range b.members {
				if n > most {
					victim, most = m, n
				}
			}
			excess := b.used - b.max
			b.mu.Unlock()
			if excess <= 0 || victim == nil {
				break
			}
			victim.TrimFor(excess + b.max/64)
		}
	}
}
