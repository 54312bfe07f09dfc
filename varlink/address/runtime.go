package address

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// RuntimeDir is the user's runtime directory as systemd's clients find it
// (docs/systemd.md, "Address"): $XDG_RUNTIME_DIR when set, else
// /run/user/<uid> when it is a directory the caller owns and nobody else
// may enter (what pam_systemd and logind create), else "". An MCP client
// that passes its server only HOME and PATH thus reaches the same socket
// as the user's shell.
func RuntimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d
	}
	d := filepath.Join(runUser, fmt.Sprint(os.Getuid()))
	if ownRuntimeDir(d) {
		return d
	}
	return ""
}

// runUser holds the users' runtime directories (a variable for tests).
var runUser = "/run/user"

// ownRuntimeDir reports whether dir is a directory (not a symbolic link)
// of the caller's uid with no access for group or others.
func ownRuntimeDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// fallbackDir is the socket directory without a runtime directory.
func fallbackDir() string { return fmt.Sprintf("/tmp/signaltty-%d", os.Getuid()) }

// socketDir is the directory of the default socket.
func socketDir() string {
	if rt := RuntimeDir(); rt != "" {
		return filepath.Join(rt, "signaltty")
	}
	return fallbackDir()
}

// UserAddress is the address of the user's daemon as logind's runtime
// directory gives it, whatever the environment says:
// unix:/run/user/<uid>/signaltty/dev.signaltty when that runtime directory
// is the caller's (see RuntimeDir), else "". A client about to start a
// daemon at another address checks it first (docs/systemd.md, "A second
// daemon").
func UserAddress() string {
	d := filepath.Join(runUser, fmt.Sprint(os.Getuid()))
	if !ownRuntimeDir(d) {
		return ""
	}
	return "unix:" + filepath.Join(d, "signaltty", "dev.signaltty")
}
