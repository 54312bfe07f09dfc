package address

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Default is where the daemon listens and the CLI connects:
// $SIGNALTTY_ADDRESS if set, else unix:<runtime>/signaltty/dev.signaltty
// with the runtime directory of RuntimeDir ($XDG_RUNTIME_DIR, else
// /run/user/<uid> when it is the caller's), else
// unix:/tmp/signaltty-<uid>/dev.signaltty.
func Default() string {
	if a := os.Getenv("SIGNALTTY_ADDRESS"); a != "" {
		return a
	}
	return "unix:" + filepath.Join(socketDir(), "dev.signaltty")
}

// SocketPath returns the file system path of a "unix:PATH[;params]" address.
func SocketPath(address string) (string, error) {
	p, ok := strings.CutPrefix(address, "unix:")
	if !ok || p == "" || strings.HasPrefix(p, "@") {
		return "", fmt.Errorf("address %q is not of the form unix:/path", address)
	}
	p, _, _ = strings.Cut(p, ";")
	return p, nil
}
