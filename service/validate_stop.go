package service

import (
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Checks of the requests that signal or stop panes (SignalPane, KillPane,
// Run.Cancel): signal names and grace periods (docs/termination.md).

// signals maps the names SignalPane and KillPane accept.
var signals = map[string]syscall.Signal{
	"HUP": unix.SIGHUP, "INT": unix.SIGINT, "QUIT": unix.SIGQUIT, "KILL": unix.SIGKILL,
	"TERM": unix.SIGTERM, "USR1": unix.SIGUSR1, "USR2": unix.SIGUSR2, "CONT": unix.SIGCONT,
	"STOP": unix.SIGSTOP, "TSTP": unix.SIGTSTP, "WINCH": unix.SIGWINCH, "ALRM": unix.SIGALRM,
}

// parseSignal accepts "TERM", "term", "SIGTERM"; "" gives def.
func parseSignal(name string, def syscall.Signal) (syscall.Signal, *Error) {
	if name == "" {
		return def, nil
	}
	n := strings.TrimPrefix(strings.ToUpper(name), "SIG")
	if sig, ok := signals[n]; ok {
		return sig, nil
	}
	return 0, invalid("signal", "unknown", "unknown signal %q (one of HUP INT QUIT KILL TERM USR1 USR2 CONT STOP TSTP WINCH ALRM)", name)
}

// Termination limits.
const MaxGrace = 60 * time.Second

// parseStop checks a termination request (KillPane, Run.Cancel): the signal
// (default SIGHUP) and a grace of at most MaxGrace.
func parseStop(signal string, grace time.Duration) (syscall.Signal, *Error) {
	sig, err := parseSignal(signal, unix.SIGHUP)
	if err == nil && grace > MaxGrace {
		err = invalid("grace_ms", "range", "grace_ms must be 0..%d", MaxGrace.Milliseconds())
	}
	return sig, err
}
