package harness

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const module = "github.com/signaltty/signaltty"

// binDir holds signalttyd, signaltty, signaltty-mcp (the MCP server
// `signaltty mcp` runs) and signaltty-attach (the tab view `signaltty
// attach --tab` runs), both found next to signaltty, side by side, built
// by Main.
var binDir string

// Main builds the programs into a temporary directory, runs the tests and
// removes the directory. A build failure fails the whole test binary with
// the compiler's output (it never skips).
//
// SIGNALTTY_TEST_RACE=1 builds the programs with the race detector.
// SIGNALTTY_TEST_BIN=DIR uses the four programs already built in DIR
// instead (tests/run builds them once for all its steps; DIR must hold
// the build SIGNALTTY_TEST_RACE asks for); DIR is left in place.
func Main(m *testing.M) {
	os.Exit(mainCode(m))
}

func mainCode(m *testing.M) int {
	flag.Parse() // for testing.Verbose and testing.Short
	if dir := os.Getenv("SIGNALTTY_TEST_BIN"); dir != "" {
		for _, b := range []string{"signalttyd", "signaltty", "signaltty-mcp", "signaltty-attach"} {
			if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
				fmt.Fprintln(os.Stderr, "harness: SIGNALTTY_TEST_BIN:", err)
				return 1
			}
		}
		binDir = dir
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "signaltty-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "harness: building signalttyd, signaltty, signaltty-mcp and signaltty-attach failed:\n"+err.Error())
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "harness: built signalttyd, signaltty, signaltty-mcp and signaltty-attach in %v\n", time.Since(start).Round(time.Millisecond))
	}
	binDir = dir
	return m.Run()
}

func build(dir string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	if os.Getenv("SIGNALTTY_TEST_RACE") == "1" {
		args = append(args, "-race")
	}
	args = append(args, module+"/cmd/signalttyd", module+"/cmd/signaltty", module+"/cmd/signaltty-mcp", module+"/cmd/signaltty-attach")
	cmd := exec.Command(goBin, args...)
	// Static, as meson.build builds them (no dynamic loader at every CLI
	// start), except with the race detector, which needs cgo.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if os.Getenv("SIGNALTTY_TEST_RACE") == "1" {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", goBin, strings.Join(args, " "), err, out)
	}
	for _, b := range []string{"signalttyd", "signaltty", "signaltty-mcp", "signaltty-attach"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return err
		}
	}
	return nil
}

// Bin returns the path of a built program ("signalttyd", "signaltty" or
// "signaltty-mcp" or "signaltty-attach").
func Bin(t testing.TB, name string) string {
	t.Helper()
	if binDir == "" {
		t.Fatal("harness: programs not built; the test package needs func TestMain(m *testing.M) { harness.Main(m) }")
	}
	return filepath.Join(binDir, name)
}

// BinDir is the directory holding the built programs.
func BinDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(Bin(t, "signaltty"))
}

// ModuleRoot returns the checkout's root directory (where go.mod is).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module "+module+"\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("harness: cannot find the module root (go.mod of " + module + ") above the working directory")
		}
		dir = parent
	}
}
