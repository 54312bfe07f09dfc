package tests

// signaltty attach --tab runs the tab view program signaltty-attach
// (docs/attach.md, "Tab view"): its failures read as the CLI's, and without
// the program the CLI says where it looked.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// A tab that does not exist is not_found.tab (exit 3), said by the tab
// view program exactly as the CLI says failures: the --json error line on
// standard output, else "signaltty: MESSAGE (CODE)" on standard error.
func TestAttachTabFailsAsTheCLIDoes(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	d.Fail(t, "not_found.tab", exitNotFound, "attach", "--tab", "tab_000000000000")
	r := d.CLI(t, "attach", "--tab", "tab_000000000000")
	if r.Code != exitNotFound || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "signaltty: ") || !strings.HasSuffix(r.Stderr, "(not_found.tab)\n") {
		t.Fatalf("want not_found.tab on stderr, exit 3:\n%s", r)
	}
}

// Without signaltty-attach next to the CLI, in its libexec directory or
// in $PATH, `signaltty attach --tab` fails unavailable.attach_viewer
// (exit 6) and says where it looked.
func TestAttachTabWithoutTheViewProgramFailsUnavailable(t *testing.T) {
	dir := harness.TempDir(t)
	cli := filepath.Join(dir, "signaltty")
	b, err := os.ReadFile(harness.Bin(t, "signaltty"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, b, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir, "SIGNALTTY_NO_AUTOSTART=1"}
	r := harness.Run(t, env, cli, "--json", "attach", "--tab")
	var e struct {
		Error struct {
			Code string
			Data struct{ Searched []string }
		}
	}
	if r.Code != exitUnavailable || json.Unmarshal([]byte(r.Stdout), &e) != nil || e.Error.Code != "unavailable.attach_viewer" ||
		!slices.Contains(e.Error.Data.Searched, dir) {
		t.Fatalf("want unavailable.attach_viewer (exit 6) naming %s:\n%s", dir, r)
	}
	r = harness.Run(t, env, cli, "attach", "--tab")
	if r.Code != exitUnavailable || !strings.Contains(r.Stderr, "signaltty-attach") || !strings.Contains(r.Stderr, "(unavailable.attach_viewer)") {
		t.Fatalf("want the error on stderr:\n%s", r)
	}
}
