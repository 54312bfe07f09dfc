package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// versionEnv is an environment in which a call to a daemon could only
// fail: --version must answer without one.
var versionEnv = []string{"PATH=/usr/bin:/bin", "SIGNALTTY_NO_AUTOSTART=1", "SIGNALTTY_ADDRESS=unix:/nonexistent/signaltty"}

// wantVersion runs `bin --version` and requires exit 0, nothing on
// standard error and exactly "NAME VERSION\n" on standard output.
func wantVersion(t *testing.T, bin, name, version string) {
	t.Helper()
	r := harness.Run(t, versionEnv, bin, "--version")
	if r.Code != 0 || r.Stdout != name+" "+version+"\n" || r.Stderr != "" {
		t.Errorf("%s --version: want exit 0 and %q, got:\n%s", name, name+" "+version+"\n", r)
	}
}

// signaltty --version and signalttyd --version print the version of the
// build and exit 0, without a daemon: by default the project version of
// meson.build, else the one the build sets with -X main.version (as meson
// and the packages do).
func TestVersionFlagsPrintTheBuildsVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "meson.build"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*version:\s*'([^']+)'`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no project version in meson.build")
	}
	for _, name := range []string{"signaltty", "signalttyd"} {
		wantVersion(t, harness.Bin(t, name), name, string(m[1]))
	}

	t.Run("set by the build", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		dir := harness.TempDir(t)
		const v = "9.8.7-versiontest"
		cmd := exec.Command(goBin, "build", "-o", dir+string(os.PathSeparator), "-ldflags", "-X main.version="+v,
			"github.com/signaltty/signaltty/cmd/signaltty", "github.com/signaltty/signaltty/cmd/signalttyd")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		for _, name := range []string{"signaltty", "signalttyd"} {
			wantVersion(t, filepath.Join(dir, name), name, v)
		}
	})
}
