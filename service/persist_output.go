package service

import (
	"time"

	"github.com/signaltty/signaltty/service/persist"
	"github.com/signaltty/signaltty/service/request"
)

// Output saves (docs/persistence.md, "When"): pane output
// changes no structure and so marks nothing dirty for the debounced saver;
// instead every output interval the saver looks at each terminal's change
// counter and, when some terminal changed since its tail was last saved,
// saves, offering the store only the tails of the terminals that changed.
// The cost of an output save grows with the panes that printed, not with
// all panes.

// DefaultSaveOutputInterval is the daemon's output save interval unless
// configured otherwise.
const DefaultSaveOutputInterval = persist.DefaultSaveOutputInterval

// CheckSaveOutputInterval accepts 0 (off) or 1 s..24 h
// (persist.CheckSaveOutputInterval).
func CheckSaveOutputInterval(d time.Duration) error {
	if err := request.CheckSaveOutputInterval(d); err != nil {
		return err
	}
	return nil
}

// SetSaveOutputInterval sets how often panes whose rows changed are saved
// (0: never); call it before StartPersistence.
func (s *Service) SetSaveOutputInterval(d time.Duration) error {
	if err := CheckSaveOutputInterval(d); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.persist.outputEvery = d
	return nil
}

// SaveOutputInterval is how often panes whose rows changed are saved (0: never).
func (s *Service) SaveOutputInterval() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.persist.outputEvery
}

// outputTicker is the saver's output tick every d (nil channel when d is
// 0: off) and its stop.
func outputTicker(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		return nil, func() {}
	}
	tk := time.NewTicker(d)
	return tk.C, tk.Stop
}

// saveOutput saves when a terminal changed since its tail was saved.
func (s *Service) saveOutput() {
	ps := &s.persist
	ps.saveMu.Lock()
	s.mu.Lock()
	changed := false
	for _, p := range s.panes {
		if p.term == nil {
			continue
		}
		if ps.tails.Changed(p.term) { // atomic: no terminal lock
			changed = true
			break
		}
	}
	s.mu.Unlock()
	ps.saveMu.Unlock()
	if !changed {
		return
	}
	if _, err := s.Save("output"); err != nil {
		s.log.Error("saving pane output failed; will retry", "err", err)
	}
}
