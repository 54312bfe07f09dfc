package pty

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	creack "github.com/creack/pty"
	"github.com/signaltty/signaltty/service/request"
	"golang.org/x/sys/unix"
)

// Bounds of Config.Cols and Config.Rows (and of Resize), in cells.
const (
	minCells = 1
	maxCells = request.MaxSize
)

// Start starts cfg.Argv on a new PTY of cfg.Cols×cfg.Rows
// cells and returns the live process, whose output goes to out.
//
// The child is a session and process group leader with the PTY as its
// controlling terminal and as fds 0, 1 and 2; no other descriptor of the
// daemon reaches it. Its parent-death signal is SIGKILL: it dies with the
// daemon, also when the daemon is killed (spawner.go). Argv[0] without '/' is looked up in the PATH of cfg.Env
// (the daemon's PATH when cfg.Env has none); with '/' it is used as given
// (relative to cfg.Dir). An empty cfg.Dir keeps the daemon's working
// directory. Start marks all of the daemon's descriptors above 2
// close-on-exec (some may have been inherited without the flag).
//
// cfg must be valid (the caller validated the request it came from): a
// missing program, a NUL byte in argv, env or dir, a size outside 1..1000
// or a nil out is a programming error and panics. A program that cannot be
// started gives a *SpawnError (Reason "not_found", "permission",
// "exec_format", "cwd", "pty" or "other"), and then no child, zombie or
// descriptor is left behind; out is then untouched (the caller closes it).
func Start(cfg Config, out Output) (*Process, error) {
	if err := cfg.validate(); err != nil {
		panic(err)
	}
	if out == nil {
		panic("pty: nil Output")
	}
	path, err := lookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return nil, err
	}
	if cfg.Dir != "" {
		if err := checkDir(cfg.Dir); err != nil {
			return nil, &SpawnError{Reason: "cwd", Err: err}
		}
	}
	master, pidfd, pid, err := spawn(path, cfg)
	if err != nil {
		return nil, err
	}
	return newProcess(cfg, out, master, pidfd, pid), nil
}

// validate reports what makes cfg invalid, without touching the system.
func (cfg *Config) validate() error {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return errors.New("pty: empty argv")
	}
	for _, a := range cfg.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return errors.New("pty: NUL byte in argv")
		}
	}
	for _, e := range cfg.Env {
		if strings.IndexByte(e, 0) >= 0 {
			return errors.New("pty: NUL byte in env")
		}
	}
	if strings.IndexByte(cfg.Dir, 0) >= 0 {
		return errors.New("pty: NUL byte in dir")
	}
	if err := checkSize(cfg.Cols, cfg.Rows); err != nil {
		return err
	}
	return nil
}

// checkSize checks a PTY size in cells.
func checkSize(cols, rows int) error {
	if cols < minCells || cols > maxCells || rows < minCells || rows > maxCells {
		return fmt.Errorf("pty: size %dx%d outside %d..%d", cols, rows, minCells, maxCells)
	}
	return nil
}

// lookPath resolves name like a shell: names with '/' are returned as they
// are; others are searched in the PATH of env (absolute entries only). A name
// found only as a non-executable file is a "permission" error.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path, ok := getenv(env, "PATH")
	if !ok {
		path = os.Getenv("PATH")
	}
	var denied error
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // "" and relative entries would depend on the cwd
		}
		file := filepath.Join(dir, name)
		st, err := os.Stat(file)
		if err != nil || st.IsDir() {
			continue
		}
		if st.Mode()&0o111 == 0 || unix.Faccessat(unix.AT_FDCWD, file, unix.X_OK, unix.AT_EACCESS) != nil {
			if denied == nil {
				denied = &os.PathError{Op: "exec", Path: file, Err: syscall.EACCES}
			}
			continue
		}
		return file, nil
	}
	if denied != nil {
		return "", &SpawnError{Reason: "permission", Err: denied}
	}
	return "", &SpawnError{Reason: "not_found", Err: fmt.Errorf("%q not found in PATH", name)}
}

// getenv returns the first value of key in env.
func getenv(env []string, key string) (string, bool) {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// checkDir reports why dir cannot be the child's working directory.
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &os.PathError{Op: "chdir", Path: dir, Err: syscall.ENOTDIR}
	}
	return nil
}

// spawn opens a PTY and fork-execs path on it. It returns the non-blocking
// master, the child's pidfd and pid. On error everything it made is closed
// and the failed child is reaped (by syscall.ForkExec).
func spawn(path string, cfg Config) (master *os.File, pidfd, pid int, err error) {
	m, tty, err := creack.Open()
	if err != nil {
		return nil, -1, 0, &SpawnError{Reason: "pty", Err: err}
	}
	defer tty.Close()
	if master, err = nonblocking(m, "/dev/ptmx"); err != nil {
		return nil, -1, 0, &SpawnError{Reason: "pty", Err: err}
	}
	if err := setWinsize(master, cfg.Cols, cfg.Rows); err != nil {
		master.Close()
		return nil, -1, 0, &SpawnError{Reason: "pty", Err: err}
	}

	if err := cloexecAll(); err != nil {
		master.Close()
		return nil, -1, 0, &SpawnError{Reason: "other", Err: err}
	}
	ttyfd := tty.Fd()
	pidfd = -1
	cgfd := -1
	if cfg.Cgroup != nil {
		f, err := cfg.Cgroup.Open()
		if err != nil {
			master.Close()
			return nil, -1, 0, &SpawnError{Reason: "other", Err: err}
		}
		defer f.Close()
		cgfd = int(f.Fd())
	}
	attr := &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   cfg.Env,
		Files: []uintptr{ttyfd, ttyfd, ttyfd},
		Sys: &syscall.SysProcAttr{
			Setsid:  true,
			Setctty: true,
			Ctty:    0,
			PidFD:   &pidfd,
			// Born in the pane's cgroup: no window in which a fork of the
			// child could escape it.
			UseCgroupFD: cgfd >= 0,
			CgroupFD:    cgfd,
		},
	}
	pid, err = forkExecMarked(path, cfg.Argv, attr, &pidfd, cfg.Mark)
	if err != nil {
		master.Close()
		return nil, -1, 0, spawnError(err, path, cfg.Dir)
	}
	if pidfd < 0 { // kernel without CLONE_PIDFD (< 5.2): we cannot supervise safely
		unix.Kill(pid, unix.SIGKILL)
		var ws unix.WaitStatus
		for {
			if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
				break
			}
		}
		master.Close()
		return nil, -1, 0, &SpawnError{Reason: "other", Err: errors.New("kernel gave no pidfd")}
	}
	return master, pidfd, pid, nil
}

// cloexecAll marks every descriptor above 2 close-on-exec. Go opens its own
// descriptors that way, but the daemon may have inherited others (from its
// parent or socket activation) that must not reach a pane's child.
func cloexecAll() error {
	err := unix.CloseRange(3, math.MaxUint, unix.CLOSE_RANGE_CLOEXEC)
	if err != unix.ENOSYS && err != unix.EINVAL {
		return err
	}
	// Kernel before 5.11: one fcntl per descriptor.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && fl&unix.FD_CLOEXEC == 0 {
				unix.FcntlInt(uintptr(fd), unix.F_SETFD, fl|unix.FD_CLOEXEC)
			}
		}
	}
	return nil
}

// spawnError classifies an exec failure of the child.
func spawnError(err error, path, dir string) *SpawnError {
	reason := "other"
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT, syscall.ENOTDIR, syscall.ELOOP, syscall.ENAMETOOLONG:
			reason = "not_found"
		case syscall.EACCES, syscall.EPERM:
			reason = "permission"
		case syscall.ENOEXEC, syscall.ELIBBAD:
			reason = "exec_format"
		}
		if reason != "other" && dir != "" && checkDir(dir) != nil {
			reason = "cwd" // the chdir failed, not the exec
		}
	}
	return &SpawnError{Reason: reason, Err: &os.PathError{Op: "exec", Path: path, Err: err}}
}

// nonblocking replaces f (which creack/pty left in blocking mode) by a
// close-on-exec, non-blocking duplicate registered with the netpoller, so
// that deadlines work and Close interrupts a pending Read or Write. f is
// closed in all cases.
func nonblocking(f *os.File, name string) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	f.Close()
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// setWinsize sets the PTY size in cells; the kernel sends SIGWINCH to the
// foreground process group when it changes. It does not call f.Fd, which
// would make f blocking.
func setWinsize(f *os.File, cols, rows int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	if cerr := rc.Control(func(fd uintptr) {
		err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws)
	}); cerr != nil {
		return cerr
	}
	return err
}

// aLongTimeAgo is a deadline in the past: it makes pending I/O fail at once.
var aLongTimeAgo = time.Unix(1, 0)
