package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// mesonInstalled is meson's install list (`meson introspect --installed`)
// configured as packaging/debian/rules configures it, without the leading "/".
func mesonInstalled(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("meson"); err != nil {
		t.Skip("needs meson (Debian package meson) to read the install list")
	}
	root := harness.ModuleRoot(t)
	build := filepath.Join(harness.TempDir(t), "build")
	r := harness.RunTimeout(t, harness.CallTimeout, os.Environ(), "meson", "setup", build, root, "--prefix=/usr",
		"-Dsystemduserunitdir=/usr/lib/systemd/user",
		"-Dbashcompletiondir=/usr/share/bash-completion/completions",
		"-Dzshcompletiondir=/usr/share/zsh/vendor-completions",
		"-Dfishcompletiondir=/usr/share/fish/vendor_completions.d")
	if r.Code != 0 {
		t.Fatalf("meson setup:\n%s", r)
	}
	r = harness.RunTimeout(t, harness.CallTimeout, os.Environ(), "meson", "introspect", build, "--installed")
	var inst map[string]string
	if err := json.Unmarshal([]byte(r.Stdout), &inst); err != nil {
		t.Fatalf("meson introspect --installed: %v\n%s", err, r)
	}
	var out []string
	for _, dest := range inst {
		out = append(out, strings.TrimPrefix(dest, "/"))
	}
	sort.Strings(out)
	return out
}

// TestDebianInstallListIsMesons: every file meson installs is in
// debian/signaltty.install and every line there matches something
// (dh_missing would fail the build otherwise, or a file would be lost).
func TestDebianInstallListIsMesons(t *testing.T) {
	t.Parallel()
	files := mesonInstalled(t)
	b, err := os.ReadFile(filepath.Join(harness.ModuleRoot(t), "packaging", "debian", "signaltty.install"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	covered := func(f string) bool {
		for _, l := range lines {
			if f == l || strings.HasSuffix(l, "/") && strings.HasPrefix(f, l) {
				return true
			}
		}
		return false
	}
	for _, f := range files {
		if !covered(f) {
			t.Errorf("meson installs %s, which debian/signaltty.install does not list", f)
		}
	}
	for _, l := range lines {
		if !slices.ContainsFunc(files, func(f string) bool { return f == l || strings.HasSuffix(l, "/") && strings.HasPrefix(f, l) }) {
			t.Errorf("debian/signaltty.install lists %s, which meson does not install", l)
		}
	}
}

// TestDebFileListIsMesons compares a built .deb ($SIGNALTTY_TEST_DEB, as
// README.md "Packages" builds it) with meson's install list: the same
// files, up to dh_compress's .gz, the copyright and changelog that every
// Debian package has, and the lintian overrides.
func TestDebFileListIsMesons(t *testing.T) {
	deb := os.Getenv("SIGNALTTY_TEST_DEB")
	if deb == "" {
		t.Skip("set SIGNALTTY_TEST_DEB to a signaltty .deb built with README.md's steps (tests/run builds one unless -no-deb)")
	}
	want := mesonInstalled(t)
	r := harness.RunTimeout(t, harness.CallTimeout, os.Environ(), "dpkg-deb", "-c", deb)
	if r.Code != 0 {
		t.Fatalf("dpkg-deb -c:\n%s", r)
	}
	var got []string
	for _, l := range strings.Split(r.Stdout, "\n") {
		fs := strings.Fields(l)
		if len(fs) < 6 || strings.HasPrefix(fs[0], "d") {
			continue
		}
		name := strings.TrimPrefix(fs[5], "./")
		switch name {
		case "usr/share/doc/signaltty/copyright", "usr/share/doc/signaltty/changelog.Debian.gz",
			"usr/share/lintian/overrides/signaltty":
			continue
		}
		got = append(got, strings.TrimSuffix(name, ".gz"))
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the .deb's files differ from meson's install list:\n.deb:  %v\nmeson: %v", got, want)
	}
}
