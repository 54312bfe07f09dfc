// Package pty starts programs on pseudo-terminals, supervises, terminates
// and reaps them, and feeds their output to a term.Terminal.
//
// A Pane is one PTY, one child process (the leader, a session and process
// group leader with the PTY as its controlling terminal) and one
// term.Terminal. Reading the PTY never waits on emulation: a reader
// goroutine moves what the PTY holds when it becomes readable (up to 64 KiB,
// in a pooled buffer taken only then) into a bounded backlog and one
// emulation goroutine owns the Terminal; the Terminal's replies to queries go back to the
// child's input without ever blocking emulation.
//
// Termination follows docs/termination.md: signal the process group (SIGHUP
// by default), send SIGCONT, wait a grace period on the monotonic clock,
// SIGKILL the group, then wait at most a kill-wait for the reap. Concurrent
// terminations join the first one.
//
// The exit status comes only from the daemon's own wait on the leader through
// its pidfd, never from anything the program prints.
package pty
