//go:build signaltty_testhooks

package service

// SetStartBarrier installs a test seam called twice by each run start that
// got past key lookup: with phase "before" just before the start barrier
// (a cancelled request then rolls back) and "after" once past it (the start
// then completes whatever happens to the request). Only test builds have it.
func (s *Service) SetStartBarrier(fn func(key, phase string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs.Barrier = fn
}

// WedgeForTest takes the service's lock and never gives it back: a stand-in
// for a wedged state owner, to test the watchdog. Only test builds have it.
func (s *Service) WedgeForTest() {
	s.mu.Lock()
}
