// Package pty starts programs on pseudo-terminals, supervises and terminates
// them, and renders their output with a terminal emulator into a bounded,
// numbered row store.
//
// A Pane is one PTY, one child process (the leader, a session and process
// group leader with the PTY as its controlling terminal) and one Terminal.
// Reading the PTY never waits on emulation: a reader goroutine moves bytes
// into a bounded backlog and one emulation goroutine owns the emulator.
//
// Rows follow the numbering of the capture-rows contract (RFC-0014 as
// translated in the signaltty specs): every physical row a pane ever showed
// has a number, counted from 0 since the pane was created (or since its
// numbering last restarted, which changes the epoch). Rows that scroll off the
// top of the primary screen move into the pane's own compact row store
// (text plus style runs), bounded by a row count and a byte budget; the screen
// rows follow them.
//
// Termination follows RFC-0012 as translated in the specs: signal the process
// group (SIGHUP by default), send SIGCONT, wait a grace period on the
// monotonic clock, SIGKILL the group, then wait at most a kill-wait for the
// reap. Concurrent terminations join the first one.
//
// The exit status comes only from the daemon's own wait on the leader through
// its pidfd, never from anything the program prints.
package pty
