package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/varlink/address"
	vl "github.com/varlink/go/varlink"
)

// Error is a failed call with the daemon's error fields: a dotted code
// (docs/errors.md), a message, and data (never nil).
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func (e *Error) Error() string { return e.Message }

// ExitStatus maps an error class to the CLI's exit status (docs/errors.md, "Classes").
func (e *Error) ExitStatus() int {
	class, _, _ := strings.Cut(e.Code, ".")
	switch class {
	case "invalid_params":
		return 2
	case "not_found":
		return 3
	case "denied":
		return 4
	case "conflict":
		return 5
	case "unavailable":
		return 6
	case "timeout":
		return 7
	case "cancelled":
		return 8
	case "unsupported":
		return 10
	}
	return 1
}

// Client is one connection to the daemon.
type Client struct {
	Conn    *vl.Connection
	address string
	ssh     *address.SSHConn // the transport of an ssh-unix: or ssh-exec: address
}

// Close closes the connection.
func (c *Client) Close() error { return c.Conn.Close() }

// Dial connects to the daemon at address. When nothing answers and
// $SIGNALTTY_NO_AUTOSTART is unset, it autostarts one (autostart.go: the
// user manager's signaltty.socket when there is one, else signalttyd in
// the background like tmux starts its server) and tries again for up to 5 s.
// A remote address (ssh-unix:, ssh-exec:) is reached through ssh and never
// starts a daemon here.
func Dial(ctx context.Context, address string) (*Client, error) {
	if IsRemote(address) {
		return dialRemote(ctx, address)
	}
	conn, err := vl.NewConnection(ctx, address)
	if err == nil {
		return &Client{Conn: conn, address: address}, nil
	}
	if errors.Is(err, syscall.EACCES) {
		if oe := otherUser(address); oe != nil {
			return nil, oe
		}
	}
	if os.Getenv("SIGNALTTY_NO_AUTOSTART") != "" || !noDaemon(err) {
		return nil, unavailable(address, err)
	}
	user := userDaemonElsewhere(ctx, address)
	managed, exited, serr := autostart(ctx, address, user)
	if serr != nil {
		what := "starting signalttyd"
		if managed {
			what = "starting " + socketUnit
		}
		return nil, &Error{Code: "unavailable.daemon", Message: fmt.Sprintf("no daemon at %s and %s failed: %v", address, what, serr),
			Data: map[string]any{"address": address}}
	}
	deadline := time.Now().Add(5 * time.Second)
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		if conn, err = vl.NewConnection(ctx, address); err == nil {
			return &Client{Conn: conn, address: address}, nil
		}
		select {
		case why := <-exited: // the daemon we started gave up: say why, at once
			return nil, &Error{Code: "unavailable.daemon", Message: fmt.Sprintf("no daemon at %s: the signalttyd started for it exited: %s", address, why),
				Data: map[string]any{"address": address}}
		default:
		}
		if time.Now().After(deadline) {
			return nil, unavailable(address, err)
		}
		time.Sleep(delay)
	}
}

func unavailable(address string, err error) *Error {
	return &Error{Code: "unavailable.daemon", Message: fmt.Sprintf("cannot reach signalttyd at %s: %v", address, err),
		Data: map[string]any{"address": address}}
}

// noDaemon reports whether a dial error means nobody listens.
func noDaemon(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// bindir is the directory the build installs signalttyd to (meson sets it
// with -ldflags -X), for signaltty-mcp, which lives in libexecdir.
var bindir = ""

// startDaemon runs signalttyd (next to this binary, else in the install's
// bindir, else from PATH) in a new session, detached from this terminal,
// logging to $XDG_STATE_HOME/signaltty/signalttyd.log. exited receives, if
// the daemon exits, the last line it logged (its reason), or its exit status.
func startDaemon(address string) (exited <-chan string, err error) {
	bin := "signalttyd"
	var dirs []string
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	if bindir != "" {
		dirs = append(dirs, bindir)
	}
	for _, dir := range dirs {
		if cand := filepath.Join(dir, "signalttyd"); IsExecutable(cand) {
			bin = cand
			break
		}
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, err
	}
	logw := io.Discard
	logPath := ""
	var logStart int64
	if dir, err := stateDir(); err == nil {
		if f, err := os.OpenFile(filepath.Join(dir, "signalttyd.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			defer f.Close()
			logw, logPath = f, f.Name()
			if fi, err := f.Stat(); err == nil {
				logStart = fi.Size()
			}
		}
	}
	cmd := exec.Command(path, "--address", address)
	cmd.Env = daemonEnviron()
	cmd.Stdout, cmd.Stderr = logw, logw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := make(chan string, 1)
	go func() { // reaped if it exits while we wait for it to listen
		werr := cmd.Wait()
		ch <- lastLogLine(logPath, logStart, werr)
	}()
	return ch, nil
}

// lastLogLine is the last line the daemon wrote to its log after offset
// (its msg= and err= if it is a log record), else a description of werr.
func lastLogLine(path string, offset int64, werr error) string {
	why := fmt.Sprintf("%v", werr)
	if werr == nil {
		why = "exit status 0"
	}
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) <= offset {
		return why
	}
	lines := strings.Split(strings.TrimSpace(string(b[offset:])), "\n")
	last := lines[len(lines)-1]
	if i := strings.Index(last, "msg="); i >= 0 { // a log record: from its message on
		last = last[i+len("msg="):]
	}
	return strings.Trim(last, `"`) + " (" + why + "; log " + path + ")"
}

// daemonEnviron is this environment minus what belongs to a systemd unit
// the CLI may run in: a daemon it starts is not that unit (docs/systemd.md,
// "One daemon per state directory" names the unit from $INVOCATION_ID).
// Without $XDG_RUNTIME_DIR it gains the one address.RuntimeDir found, so
// the daemon and its panes see the directory its socket is in.
func daemonEnviron() []string {
	var env []string
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		if rt := address.RuntimeDir(); rt != "" {
			env = append(env, "XDG_RUNTIME_DIR="+rt)
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "INVOCATION_ID", k == "JOURNAL_STREAM", k == "NOTIFY_SOCKET",
			strings.HasPrefix(k, "LISTEN_"), strings.HasPrefix(k, "WATCHDOG_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// stateDir is $XDG_STATE_HOME/signaltty (default ~/.local/state/signaltty), created 0700.
func stateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".local", "state")
	}
	dir := filepath.Join(base, "signaltty")
	return dir, os.MkdirAll(dir, 0o700)
}

// Call makes one call and returns the raw reply parameters; a failure is
// an *Error.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Conn.Call(ctx, method, params, &out)
	if err != nil {
		return nil, c.fail(err)
	}
	if len(out) == 0 {
		out = json.RawMessage("{}")
	}
	return out, nil
}

// Stream makes a call with "more" and hands each reply to fn until the
// last; a failed call is an *Error, fn's error is returned as it is.
func (c *Client) Stream(ctx context.Context, method string, params any, fn func(json.RawMessage) error) error {
	recv, err := c.Conn.Send(ctx, method, params, vl.More)
	if err != nil {
		return c.fail(err)
	}
	for {
		var out json.RawMessage
		flags, err := recv(ctx, &out)
		if err != nil {
			return c.fail(err)
		}
		if err := fn(out); err != nil {
			return err
		}
		if flags&vl.Continues == 0 {
			return nil
		}
	}
}

// lostPrefix begins the message of a connection lost before its reply.
const lostPrefix = "connection to signalttyd lost: "

// replyError turns a varlink error reply into a *Error.
func replyError(err error) error {
	var ve *vl.Error
	if errors.As(err, &ve) {
		ce := &Error{Code: "internal", Message: ve.Name}
		if raw, ok := ve.Parameters.(*json.RawMessage); ok && raw != nil {
			_ = json.Unmarshal(*raw, ce)
		}
		if ce.Data == nil {
			ce.Data = map[string]any{}
		}
		return ce
	}
	var ip *vl.InvalidParameter
	if errors.As(err, &ip) {
		return &Error{Code: "invalid_params.parameters", Message: "invalid parameter " + ip.Parameter,
			Data: map[string]any{"param": ip.Parameter}}
	}
	var mnf *vl.MethodNotFound
	if errors.As(err, &mnf) {
		return &Error{Code: "unsupported.method", Message: "the daemon has no method " + mnf.Method,
			Data: map[string]any{"method": mnf.Method}}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		return &Error{Code: "unavailable.daemon", Message: lostPrefix + err.Error(), Data: map[string]any{}}
	}
	return &Error{Code: "internal", Message: err.Error(), Data: map[string]any{}}
}

// DefaultAddress is the daemon address when --address is not given
// ($SIGNALTTY_ADDRESS, else the user's runtime socket).
func DefaultAddress() string { return address.Default() }

// otherUser explains a connection the daemon closed or that could not be
// made because the socket at address, or its directory, belongs to another
// user: signalttyd serves only its own uid (docs/security.md, "Who is
// calling"). It returns nil when that is not the case or not seen (a
// remote address, a socket it cannot stat). Error: denied.other_user, data
// socket, socket_uid, uid.
func otherUser(address string) *Error {
	path, ok := strings.CutPrefix(address, "unix:")
	if !ok || path == "" || strings.HasPrefix(path, "@") {
		return nil
	}
	path, _, _ = strings.Cut(path, ";")
	me := os.Geteuid()
	for _, p := range []string{path, filepath.Dir(path)} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil {
			continue
		}
		if int(st.Uid) == me {
			return nil
		}
		return &Error{Code: "denied.other_user",
			Message: fmt.Sprintf("%s belongs to uid %d, and you are uid %d: signalttyd serves only the user it runs as and refuses connections from others; run signaltty as uid %d, or point SIGNALTTY_ADDRESS (or --address) at a daemon of your own", p, st.Uid, me, st.Uid),
			Data:    map[string]any{"socket": path, "socket_uid": int(st.Uid), "uid": me}}
	}
	return nil
}
