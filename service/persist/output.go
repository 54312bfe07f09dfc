package persist

import (
	"time"

	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/term"
)

// Output saves (docs/persistence.md, "When"): pane output changes no
// structure and so marks nothing dirty for the debounced save; instead
// every output interval the Saver looks at each terminal's change counter
// and, when some terminal changed since its tail was last saved, saves,
// offering the store only the tails of the terminals that changed. The
// cost of an output save grows with the panes that printed, not with all
// panes.

// SetSaveOutputInterval sets how often panes whose rows changed are saved
// (0: never); call it before Start. Errors: those of
// request.CheckSaveOutputInterval.
func (sv *Saver) SetSaveOutputInterval(d time.Duration) error {
	if err := request.CheckSaveOutputInterval(d); err != nil {
		return err
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.outputEvery = d
	return nil
}

// SaveOutputInterval is how often panes whose rows changed are saved (0: never).
func (sv *Saver) SaveOutputInterval() time.Duration {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.outputEvery
}

// outputTicker is the output tick every d (nil channel when d is 0: off)
// and its stop.
func outputTicker(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		return nil, func() {}
	}
	tk := time.NewTicker(d)
	return tk.C, tk.Stop
}

// saveOutput saves when a terminal changed since its tail was saved.
func (sv *Saver) saveOutput() {
	sv.saveMu.Lock()
	sv.mu.Lock()
	changed := false
	sv.model.TerminalsLocked(func(t *term.Terminal) bool {
		changed = sv.tails.Changed(t) // atomic: no terminal lock
		return !changed
	})
	sv.mu.Unlock()
	sv.saveMu.Unlock()
	if !changed {
		return
	}
	if _, err := sv.Save("output"); err != nil {
		sv.log.Error("saving pane output failed; will retry", "err", err)
	}
}

// ForgetTails makes the next save offer every tail again; the save lock is
// taken, the model's lock is not held.
func (sv *Saver) ForgetTails() {
	sv.saveMu.Lock()
	sv.tails.Forget()
	sv.saveMu.Unlock()
}
