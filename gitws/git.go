package gitws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds one git invocation when Git.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Git runs the git program. The zero value looks git up in PATH of the
// current process's environment.
type Git struct {
	// Path is the git program; "" looks "git" up in PATH (of Env when set).
	Path string
	// Env is the environment git runs with (minus GIT_* variables); nil is
	// the current process's.
	Env []string
	// Timeout bounds each invocation; 0 is DefaultTimeout.
	Timeout time.Duration
}

// ErrNoGit is returned when the git program cannot be found.
var ErrNoGit = errors.New("the git program was not found")

// errNoDir: the directory to run git in does not exist.
var errNoDir = errors.New("no such directory")

// Error kinds.
const (
	KindNotRepository    = "not_a_repository"   // the directory is not in a git working tree
	KindBadBranch        = "bad_branch"         // the branch name is not a valid one
	KindBranchExists     = "branch_exists"      // a new branch was asked for (from a ref) and it exists
	KindBranchCheckedOut = "branch_checked_out" // the branch is checked out in another worktree
	KindUnknownRef       = "unknown_ref"        // the start point names no commit
	KindPathExists       = "path_exists"        // the worktree's directory exists
	KindNotWorktree      = "not_a_worktree"     // the path is not a linked worktree of the repository
	KindDirty            = "dirty"              // the worktree has changes or untracked files
	KindLocked           = "locked"             // the worktree is locked
	KindNoGit            = "no_git"             // git is not installed
	KindFailed           = "failed"             // git failed otherwise (Stderr says how)
)

// Error is a failure of a git operation.
type Error struct {
	Kind   string // one of the Kind constants
	Msg    string // a sentence for people
	Stderr string // git's own message, trimmed, when git reported one
	Path   string // the directory concerned, when there is one
}

func (e *Error) Error() string {
	if e.Stderr != "" {
		return e.Msg + ": " + e.Stderr
	}
	return e.Msg
}

func fail(kind, stderr, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Stderr: strings.TrimSpace(stderr)}
}

// result is one finished git invocation.
type result struct {
	stdout, stderr string
	code           int // exit status; -1 when it did not run or was killed
}

// run runs git with args in dir. err is non-nil only when git could not be
// run or did not finish (ErrNoGit, a deadline); a non-zero exit is in code.
func (g *Git) run(ctx context.Context, dir string, args ...string) (result, error) {
	path := g.Path
	if path == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return result{code: -1}, ErrNoGit
		}
		path = p
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return result{code: -1}, errNoDir
	}
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = g.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), code: -1}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.code = 0
	case ctx.Err() != nil:
		return r, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return r, ErrNoGit
	default:
		return r, fmt.Errorf("running git: %w", err)
	}
	return r, nil
}

// env is the environment of git: the configured one without GIT_* and
// locale variables, plus the C locale, no prompts and no optional locks.
func (g *Git) env() []string {
	base := g.Env
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+4)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat")
}

// Installed reports whether the git program can be found.
func (g *Git) Installed() bool {
	if g.Path != "" {
		_, err := os.Stat(g.Path)
		return err == nil
	}
	_, err := exec.LookPath("git")
	return err == nil
}
