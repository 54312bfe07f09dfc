package request

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"golang.org/x/sys/unix"
)

// CheckSize checks a pane size in cells: both within MinSize..MaxSize.
// Errors: invalid_params.size (data.min, data.max).
func CheckSize(cols, rows int) *errcode.Error {
	if cols < MinSize || cols > MaxSize || rows < MinSize || rows > MaxSize {
		return errcode.New("invalid_params.size", map[string]any{"param": "size", "reason": "range", "min": MinSize, "max": MaxSize},
			"size %dx%d is outside %d..%d", cols, rows, MinSize, MaxSize)
	}
	return nil
}

// CheckSizeOpt checks a requested size; absent parts are DefaultCols and
// DefaultRows. Errors: as CheckSize.
func CheckSizeOpt(cols, rows *int) *errcode.Error {
	c, r := DefaultCols, DefaultRows
	if cols != nil {
		c = *cols
	}
	if rows != nil {
		r = *rows
	}
	return CheckSize(c, r)
}

// CheckCwdSyntax checks a requested working directory without looking at
// the disk: absolute, no NUL byte (invalid_params.cwd). Whether it is an
// existing directory is checked when the process is started.
func CheckCwdSyntax(cwd string) *errcode.Error {
	if strings.IndexByte(cwd, 0) >= 0 {
		return errcode.Invalid("cwd", "nul", "cwd contains a NUL byte")
	}
	if !filepath.IsAbs(cwd) {
		return errcode.Invalid("cwd", "relative", "cwd is not an absolute path")
	}
	return nil
}

// CheckArgv checks a command: a program named, no NUL byte.
// Errors: invalid_params.argv (missing, nul).
func CheckArgv(argv []string) *errcode.Error {
	if len(argv) == 0 || argv[0] == "" {
		return errcode.Invalid("argv", "missing", "argv must name a program")
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return errcode.Invalid("argv", "nul", "argv contains a NUL byte")
		}
	}
	return nil
}

// signals maps the names SignalPane and KillPane accept.
var signals = map[string]syscall.Signal{
	"HUP": unix.SIGHUP, "INT": unix.SIGINT, "QUIT": unix.SIGQUIT, "KILL": unix.SIGKILL,
	"TERM": unix.SIGTERM, "USR1": unix.SIGUSR1, "USR2": unix.SIGUSR2, "CONT": unix.SIGCONT,
	"STOP": unix.SIGSTOP, "TSTP": unix.SIGTSTP, "WINCH": unix.SIGWINCH, "ALRM": unix.SIGALRM,
}

// ParseSignal accepts "TERM", "term", "SIGTERM"; "" gives def.
// Errors: invalid_params.signal (unknown).
func ParseSignal(name string, def syscall.Signal) (syscall.Signal, *errcode.Error) {
	if name == "" {
		return def, nil
	}
	n := strings.TrimPrefix(strings.ToUpper(name), "SIG")
	if sig, ok := signals[n]; ok {
		return sig, nil
	}
	return 0, errcode.Invalid("signal", "unknown", "unknown signal %q (one of HUP INT QUIT KILL TERM USR1 USR2 CONT STOP TSTP WINCH ALRM)", name)
}

// ParseStop checks a termination request (KillPane, Run.Cancel): the
// signal (default SIGHUP) and a grace of at most MaxGrace
// (docs/termination.md). Errors: invalid_params.signal, invalid_params.grace_ms.
func ParseStop(signal string, grace time.Duration) (syscall.Signal, *errcode.Error) {
	sig, err := ParseSignal(signal, unix.SIGHUP)
	if err == nil && grace > MaxGrace {
		err = errcode.Invalid("grace_ms", "range", "grace_ms must be 0..%d", MaxGrace.Milliseconds())
	}
	return sig, err
}

// CheckSessionID accepts 1..MaxSessionID bytes without control characters.
// Errors: invalid_params.session (missing, size, control).
func CheckSessionID(id string) *errcode.Error {
	if id == "" {
		return errcode.Invalid("session", "missing", "session is required")
	}
	if len(id) > MaxSessionID {
		return errcode.Invalid("session", "size", "session is longer than %d bytes", MaxSessionID)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return errcode.Invalid("session", "control", "session must not contain control characters")
		}
	}
	return nil
}

// CheckRunKey checks a run's key: 1..128 bytes of [A-Za-z0-9._:-]
// (docs/run-wait.md, "Start"). Errors: invalid_params.key (syntax).
func CheckRunKey(key string) *errcode.Error {
	if !runKeySyntax(key) {
		return errcode.New("invalid_params.key", map[string]any{"param": "key", "reason": "syntax"},
			"key must be 1..128 bytes of [A-Za-z0-9._:-]")
	}
	return nil
}

// CheckShell checks a run's shell text: 1..MaxShell bytes, no NUL byte.
// Errors: invalid_params.command (size, nul).
func CheckShell(shell string) *errcode.Error {
	switch {
	case len(shell) == 0 || len(shell) > MaxShell:
		return errcode.New("invalid_params.command", map[string]any{"param": "shell", "reason": "size"}, "shell must be 1..%d bytes", MaxShell)
	case strings.IndexByte(shell, 0) >= 0:
		return errcode.New("invalid_params.command", map[string]any{"param": "shell", "reason": "nul"}, "shell contains a NUL byte")
	}
	return nil
}

// CheckRunBounds checks a run's deadline (1..MaxDeadlineMs ms) and output
// bounds (0..MaxOutputRows rows, 0..MaxOutputBytes bytes); nil is absent.
// Errors: invalid_params.deadline_ms, .output_rows, .output_bytes (range).
func CheckRunBounds(deadlineMs *int64, outputRows, outputBytes *int) *errcode.Error {
	if deadlineMs != nil && (*deadlineMs < 1 || *deadlineMs > MaxDeadlineMs) {
		return errcode.Invalid("deadline_ms", "range", "deadline_ms must be 1..%d", MaxDeadlineMs)
	}
	if outputRows != nil && (*outputRows < 0 || *outputRows > MaxOutputRows) {
		return errcode.Invalid("output_rows", "range", "output_rows must be 0..%d", MaxOutputRows)
	}
	if outputBytes != nil && (*outputBytes < 0 || *outputBytes > MaxOutputBytes) {
		return errcode.Invalid("output_bytes", "range", "output_bytes must be 0..%d", MaxOutputBytes)
	}
	return nil
}

// CheckWaitMs checks a wait's timeout_ms: 0..MaxWaitMs.
// Errors: invalid_params.timeout_ms (range).
func CheckWaitMs(ms int64) *errcode.Error {
	if ms < 0 || ms > MaxWaitMs {
		return errcode.Invalid("timeout_ms", "range", "timeout_ms must be 0..%d", MaxWaitMs)
	}
	return nil
}

// CheckWorktreeRef checks a worktree's branch and start point: the branch
// given, both at most MaxRef bytes, no NUL (docs/workspaces.md, "A
// worktree per agent"). Errors: invalid_params.worktree (missing, size, nul).
func CheckWorktreeRef(branch, from string) *errcode.Error {
	if branch == "" {
		return errcode.Invalid("worktree", "missing", "worktree (the branch) is required")
	}
	if len(branch) > MaxRef || len(from) > MaxRef {
		return errcode.Invalid("worktree", "size", "branch names and start points are at most %d bytes", MaxRef)
	}
	if strings.ContainsRune(branch, 0) || strings.ContainsRune(from, 0) {
		return errcode.Invalid("worktree", "nul", "branch names and start points must not contain NUL")
	}
	return nil
}

// Names is a set of environment variable names as requests and records
// keep it: sorted, each once; nil when names is empty.
func Names(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// runKeySyntax reports whether key is 1..128 bytes of [A-Za-z0-9._:-]: a
// loop, not a package-level regular expression, which every program that
// imports this package (the CLI takes its bounds from here) would compile
// at its start.
func runKeySyntax(key string) bool {
	if len(key) < 1 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
