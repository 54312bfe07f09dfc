package address

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Without XDG_RUNTIME_DIR the address is in /run/user/<uid> when that is
// the caller's own directory, and in /tmp/signaltty-<uid> otherwise.
func TestDefaultAddressWithoutXDGRuntimeDirUsesTheUsersRunDirectory(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("SIGNALTTY_ADDRESS", "")
	base := t.TempDir()
	old := runUser
	runUser = base
	t.Cleanup(func() { runUser = old })
	own := filepath.Join(base, fmt.Sprint(os.Getuid()))
	fallback := "unix:" + filepath.Join(fallbackDir(), "dev.signaltty")

	if got := Default(); got != fallback {
		t.Fatalf("no /run/user/<uid>: %s, want %s", got, fallback)
	}
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Default(); got != fallback {
		t.Fatalf("a /run/user/<uid> others may enter: %s, want %s", got, fallback)
	}
	if err := os.Chmod(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if got, want := Default(), "unix:"+filepath.Join(own, "signaltty", "dev.signaltty"); got != want {
		t.Fatalf("the caller's /run/user/<uid>: %s, want %s", got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/elsewhere")
	if got := Default(); got != "unix:/elsewhere/signaltty/dev.signaltty" {
		t.Fatalf("$XDG_RUNTIME_DIR comes first: %s", got)
	}
	os.Unsetenv("XDG_RUNTIME_DIR")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Rename(own, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(link, own); err != nil {
		t.Fatal(err)
	}
	if got := Default(); got != fallback {
		t.Fatalf("a symbolic link at /run/user/<uid>: %s, want %s", got, fallback)
	}
}
