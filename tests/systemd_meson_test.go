package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/signaltty/signaltty/tests/harness"
)

// TestMesonInstallUnderAUserManager installs the meson-built tree (the
// programs, units, D-Bus files) into a private prefix, points the private
// user manager and its session bus at it, and goes through it as a new
// user would: `systemctl --user enable --now signaltty.socket`, a CLI call
// that activates the installed daemon, and a D-Bus call.
func TestMesonInstallUnderAUserManager(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/meson"); err != nil {
		t.Skip("needs meson (Debian package meson)")
	}
	dir := harness.TempDir(t)
	prefix := filepath.Join(dir, "usr")
	units := filepath.Join(dir, "data", "systemd", "user") // $XDG_DATA_HOME/systemd/user: searched by the manager
	build := filepath.Join(dir, "build")
	env := os.Environ()
	r := harness.RunTimeout(t, harness.CallTimeout, env, "meson", "setup", build, harness.ModuleRoot(t), "--prefix="+prefix,
		"-Dsystemduserunitdir="+units)
	if r.Code != 0 {
		t.Fatalf("meson setup:\n%s", r)
	}
	// The install builds the four programs from a cold cache: 7 minutes
	// on a loaded 2-core machine.
	if r = harness.RunTimeout(t, 15*harness.CallTimeout, env, "meson", "install", "-C", build); r.Code != 0 {
		t.Fatalf("meson install:\n%s", r)
	}
	bus := harness.PrepareSessionBus(t, dir, false)
	// The bus takes the installed D-Bus files, not the source tree's.
	conf := filepath.Join(dir, "bus", "bus.conf")
	b, _ := os.ReadFile(conf)
	c := strings.Replace(string(b), filepath.Join(dir, "bus", "services"), filepath.Join(prefix, "share", "dbus-1", "services"), 1)
	c = strings.Replace(c, filepath.Join(dir, "bus", "session.d"), filepath.Join(prefix, "share", "dbus-1", "session.d"), 1)
	os.WriteFile(conf, []byte(c), 0o644)
	m := harness.StartUserManagerIn(t, dir, harness.NoUnits)
	bus.Listening(t)

	unit, err := os.ReadFile(filepath.Join(units, "signaltty.service"))
	if err != nil || !strings.Contains(string(unit), "ExecStart="+filepath.Join(prefix, "bin", "signalttyd")) {
		t.Fatalf("installed signaltty.service (%v) does not start the installed signalttyd:\n%s", err, unit)
	}
	m.Systemctl(t, "enable", "--now", "signaltty.socket")
	if st := m.Show(t, "signaltty.socket", "ActiveState"); st != "active" {
		t.Fatalf("signaltty.socket is %s after enable --now", st)
	}
	cli := filepath.Join(prefix, "bin", "signaltty")
	r = harness.RunTimeout(t, harness.CallTimeout, m.Env(), cli, "--json", "status")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"socket_activated":true`) {
		t.Fatalf("the installed CLI's first call must activate the installed daemon:\n%s", r)
	}
	if ok, exe := harness.Runs(m.MainPID(t), filepath.Join(prefix, "bin", "signalttyd")); !ok {
		t.Fatalf("signaltty.service runs %s, want the installed signalttyd", exe)
	}
	// `signaltty attach --tab` runs the tab view meson installed there too:
	// its not_found.tab comes from that program (docs/attach.md, "Tab view").
	if _, err := os.Stat(filepath.Join(prefix, "libexec", "signaltty", "signaltty-attach")); err != nil {
		t.Fatalf("meson did not install signaltty-attach in libexec/signaltty: %v", err)
	}
	r = harness.RunTimeout(t, harness.CallTimeout, m.Env(), cli, "--json", "attach", "--tab", "tab_000000000000")
	harness.CheckFail(t, r, "not_found.tab", exitNotFound)
	// `signaltty mcp` runs the server meson installed in libexecdir/signaltty
	// (not next to the CLI, not in $PATH: docs/mcp.md, "The server program").
	if _, err := os.Stat(filepath.Join(prefix, "libexec", "signaltty", "signaltty-mcp")); err != nil {
		t.Fatalf("meson did not install signaltty-mcp in libexec/signaltty: %v", err)
	}
	s := harness.StartMCPWith(t, cli, m.Env())
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("status through the installed signaltty mcp: %v %+v", err, res)
	}
	r = busctl(t, m, bus.Address, "call", "dev.signaltty1", "/dev/signaltty1", "dev.signaltty1", "GetStatus")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "ssu ") {
		t.Fatalf("GetStatus over D-Bus:\n%s", r)
	}
}

// TestMesonHomePrefixInstallsUnitsWhereTheUserManagerLooks: `meson setup
// --prefix=$HOME/.local` puts the user units into a directory of the user
// manager's search path ($XDG_DATA_HOME/systemd/user), not into
// ~/.local/lib/systemd/user, which no user manager reads.
func TestMesonHomePrefixInstallsUnitsWhereTheUserManagerLooks(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/meson"); err != nil {
		t.Skip("needs meson (Debian package meson)")
	}
	home := harness.TempDir(t)
	prefix := filepath.Join(home, ".local")
	build := filepath.Join(home, "build")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home)
	if r := harness.RunTimeout(t, harness.CallTimeout, env, "meson", "setup", build, harness.ModuleRoot(t), "--prefix="+prefix); r.Code != 0 {
		t.Fatalf("meson setup:\n%s", r)
	}
	r := harness.RunTimeout(t, harness.CallTimeout, env, "meson", "introspect", "--installed", build)
	if r.Code != 0 {
		t.Fatalf("meson introspect:\n%s", r)
	}
	var installed map[string]string
	if err := json.Unmarshal([]byte(r.Stdout), &installed); err != nil {
		t.Fatalf("meson introspect --installed: %v\n%s", err, r.Stdout)
	}
	var socketDir string
	for _, to := range installed {
		if filepath.Base(to) == "signaltty.socket" {
			socketDir = filepath.Dir(to)
		}
	}
	if socketDir == "" {
		t.Fatalf("meson installs no signaltty.socket:\n%s", r.Stdout)
	}
	paths := harness.RunTimeout(t, harness.CallTimeout, env, "systemd-analyze", "--user", "unit-paths")
	if paths.Code != 0 {
		t.Fatalf("systemd-analyze --user unit-paths:\n%s", paths)
	}
	if !slices.Contains(strings.Fields(paths.Stdout), socketDir) {
		t.Fatalf("meson installs the user units into %s, which the user manager of HOME=%s does not search:\n%s", socketDir, home, paths.Stdout)
	}
}
