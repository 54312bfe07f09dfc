// Package pty owns a pane's process: it starts programs on pseudo-terminals,
// supervises, terminates and reaps them, and moves their output to an Output
// and their Output's query replies back to their input. It does no terminal
// emulation and imports none: the caller makes the emulator (a pane's
// term.Terminal) and hands it to Start as the Output.
//
// A Process is one PTY and one child process (the leader, a session and
// process group leader with the PTY as its controlling terminal). Reading the
// PTY never waits on the Output: a reader goroutine moves what the PTY holds
// when it becomes readable (up to 64 KiB, in a pooled buffer taken only then)
// into a bounded backlog and one goroutine feeds the Output; the Output's
// replies to queries (Replies) go back to the child's input without ever
// blocking it.
//
// Termination follows docs/termination.md: signal the process group (SIGHUP
// by default), send SIGCONT, wait a grace period on the monotonic clock,
// SIGKILL the group, then wait at most a kill-wait for the reap. Concurrent
// terminations join the first one.
//
// The exit status comes only from the daemon's own wait on the leader through
// its pidfd, never from anything the program prints.
package pty
