//go:build signaltty_testhooks

package pty

// SetReapHold installs a test seam: fn is asked, for every exited leader
// before its reap, for a channel to wait on. Only test builds have it.
func SetReapHold(fn func(pid int) <-chan struct{}) { reapHold = fn }
