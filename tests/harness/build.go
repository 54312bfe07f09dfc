package harness

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const module = "github.com/signaltty/signaltty"

// binDir holds signalttyd, signaltty, signaltty-mcp (the MCP server
// `signaltty mcp` runs) and signaltty-attach (the tab view `signaltty
// attach --tab` runs), both found next to signaltty, side by side, built
// by Main.
var binDir string

// plainDir holds signalttyd and signaltty built without the race
// detector, for Options.WithoutRace: binDir when SIGNALTTY_TEST_RACE is not
// 1, SIGNALTTY_TEST_PLAIN_BIN=DIR (tests/run builds both), or else a
// directory they are built into on first use (plainBuild, removed by Main).
var (
	plainOnce  sync.Once
	plainDir   string
	plainErr   error
	plainBuild string
)

// Main builds the programs into a temporary directory, runs the tests and
// removes the directory. A build failure fails the whole test binary with
// the compiler's output (it never skips).
//
// SIGNALTTY_TEST_RACE=1 builds the programs with the race detector.
// SIGNALTTY_TEST_BIN=DIR uses the four programs already built in DIR
// instead (tests/run builds them once for all its steps; DIR must hold
// the build SIGNALTTY_TEST_RACE asks for); DIR is left in place.
// SIGNALTTY_TEST_PLAIN_BIN=DIR holds signalttyd and signaltty built
// without -race, for the tests that ask for them (Options.WithoutRace).
func Main(m *testing.M) {
	code := mainCode(m)
	if plainBuild != "" {
		os.RemoveAll(plainBuild)
	}
	os.Exit(code)
}

func mainCode(m *testing.M) int {
	flag.Parse() // for testing.Verbose and testing.Short
	if dir := os.Getenv("SIGNALTTY_TEST_PLAIN_BIN"); dir != "" {
		for _, b := range []string{"signalttyd", "signaltty"} {
			if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
				fmt.Fprintln(os.Stderr, "harness: SIGNALTTY_TEST_PLAIN_BIN:", err)
				return 1
			}
		}
		plainDir = dir
		plainOnce.Do(func() {})
	}
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
	progs := []string{"signalttyd", "signaltty", "signaltty-mcp", "signaltty-attach"}
	return buildPrograms(dir, os.Getenv("SIGNALTTY_TEST_RACE") == "1", progs...)
}

// buildPrograms builds the named programs of cmd/ into dir, with the race
// detector when race is set.
func buildPrograms(dir string, race bool, progs ...string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	if race {
		args = append(args, "-race")
	}
	for _, p := range progs {
		args = append(args, module+"/cmd/"+p)
	}
	cmd := exec.Command(goBin, args...)
	// Static, as meson.build builds them (no dynamic loader at every CLI
	// start), except with the race detector, which needs cgo.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if race {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", goBin, strings.Join(args, " "), err, out)
	}
	for _, b := range progs {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return err
		}
	}
	return nil
}

// plainProgram returns the path of signalttyd or signaltty built without
// the race detector (see plainDir); a build failure fails t.
func plainProgram(t testing.TB, name string) string {
	t.Helper()
	if os.Getenv("SIGNALTTY_TEST_RACE") != "1" {
		return Bin(t, name)
	}
	plainOnce.Do(func() {
		dir, err := os.MkdirTemp("", "signaltty-e2e-plain-")
		if err != nil {
			plainErr = err
			return
		}
		plainBuild = dir
		if plainErr = buildPrograms(dir, false, "signalttyd", "signaltty"); plainErr == nil {
			plainDir = dir
		}
	})
	if plainErr != nil {
		t.Fatalf("harness: building signalttyd and signaltty without -race: %v", plainErr)
	}
	return filepath.Join(plainDir, name)
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
