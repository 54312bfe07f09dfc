package tests

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

var interfaces = []string{"dev.signaltty.Events", "dev.signaltty.Mux", "dev.signaltty.Server"}

// idlFiles finds every .varlink file of the checkout, by interface name.
func idlFiles(t *testing.T) map[string]string {
	t.Helper()
	root := harness.ModuleRoot(t)
	out := map[string]string{}
	iface := regexp.MustCompile(`(?m)^interface\s+(\S+)`)
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".varlink") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			m := iface.FindSubmatch(b)
			if m == nil {
				t.Errorf("%s declares no interface", path)
				return nil
			}
			if prev, ok := out[string(m[1])]; ok {
				t.Errorf("interface %s is declared in %s and %s", m[1], prev, path)
			}
			out[string(m[1])] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// `varlinkctl validate-idl` accepts every .varlink file of the repository.
func TestVarlinkctlValidateIDL(t *testing.T) {
	t.Parallel()
	files := idlFiles(t)
	for _, name := range interfaces {
		if files[name] == "" {
			t.Errorf("no .varlink file declares %s", name)
		}
	}
	for name, path := range files {
		r := harness.VarlinkctlRun(t, "validate-idl", path)
		if r.Code != 0 || !strings.Contains(r.Stdout, "interface "+name) {
			t.Errorf("varlinkctl validate-idl %s:\n%s", path, r)
		}
	}
}

// The daemon through varlinkctl: info, introspection, a whole pane cycle made
// of `varlinkctl call`s, and an error.
func TestVarlinkctl(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)

	t.Run("info", func(t *testing.T) {
		r := d.Varlinkctl(t, "info", "--json=short")
		if r.Code != 0 {
			t.Fatalf("varlinkctl info:\n%s", r)
		}
		var info struct {
			Vendor     string   `json:"vendor"`
			Product    string   `json:"product"`
			Version    string   `json:"version"`
			Interfaces []string `json:"interfaces"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &info); err != nil {
			t.Fatalf("varlinkctl info --json=short: %v\n%s", err, r)
		}
		got := append([]string{}, info.Interfaces...)
		sort.Strings(got)
		// Every interface the repository declares, and org.varlink.service.
		want := []string{"org.varlink.service"}
		for name := range idlFiles(t) {
			want = append(want, name)
		}
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("interfaces %v, want %v (org.varlink.service and the repository's .varlink files)", got, want)
		}
		for _, name := range interfaces {
			if !contains(got, name) {
				t.Errorf("varlinkctl info does not list %s", name)
			}
		}
		if info.Version == "" || info.Product == "" {
			t.Errorf("info without product or version: %+v", info)
		}
		// The human form too.
		r = d.Varlinkctl(t, "info")
		for _, name := range want {
			if r.Code != 0 || !strings.Contains(r.Stdout, name) {
				t.Errorf("varlinkctl info does not list %s:\n%s", name, r)
			}
		}
	})

	t.Run("introspect", func(t *testing.T) {
		files := idlFiles(t)
		for _, name := range interfaces {
			r := d.Varlinkctl(t, "introspect", name)
			if r.Code != 0 || !strings.Contains(r.Stdout, "interface "+name+"\n") {
				t.Errorf("varlinkctl introspect %s:\n%s", name, r)
				continue
			}
			// The daemon serves the repository's IDL: both normalised by varlinkctl must match.
			if path := files[name]; path != "" {
				v := harness.VarlinkctlRun(t, "validate-idl", path)
				if strings.TrimSpace(v.Stdout) != strings.TrimSpace(r.Stdout) {
					t.Errorf("the daemon's %s differs from %s:\n--- served\n%s\n--- file\n%s", name, path, r.Stdout, v.Stdout)
				}
			}
		}
		r := d.Varlinkctl(t, "introspect", "dev.signaltty.Mux")
		for _, m := range []string{"CreateWorkspace", "SpawnPane", "SendInput", "CaptureRows", "KillPane", "RemovePane"} {
			if !strings.Contains(r.Stdout, "method "+m+"(") {
				t.Errorf("introspection of Mux lacks method %s", m)
			}
		}
		if r := d.Varlinkctl(t, "introspect", "dev.signaltty.Nope"); r.Code == 0 {
			t.Errorf("introspecting an unknown interface succeeded:\n%s", r)
		}
	})

	t.Run("pane cycle", func(t *testing.T) {
		var cw struct {
			Workspace harness.Workspace `json:"workspace"`
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": "vctl"}, &cw)
		var sp struct {
			Pane harness.Pane `json:"pane"`
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.SpawnPane", map[string]any{
			"workspace": cw.Workspace.Handle, "argv": []string{"bash", "--norc", "--noprofile"}, "env": map[string]string{"PS1": prompt},
		}, &sp)
		p := sp.Pane
		if p.State != "live" || p.PID() <= 0 || p.Workspace != cw.Workspace.ID {
			t.Fatalf("SpawnPane via varlinkctl: %+v", p)
		}
		capture := func() harness.Capture {
			var c harness.Capture
			d.VarlinkCall(t, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": p.ID}, &c)
			return c
		}
		harness.Eventually(t, harness.PollTimeout, "the prompt shows", func() (bool, string) {
			c := capture()
			return c.HasLine("$"), c.Dump()
		})
		var sent struct {
			Written int `json:"written"`
		}
		text := "echo vctl-$((6*7))\n"
		d.VarlinkCall(t, "dev.signaltty.Mux.SendInput", map[string]any{"pane": p.ID, "text": text}, &sent)
		if sent.Written != len(text) {
			t.Errorf("SendInput written %d, want %d", sent.Written, len(text))
		}
		harness.Eventually(t, harness.PollTimeout, "bash prints vctl-42", func() (bool, string) {
			c := capture()
			return c.HasLine("vctl-42"), c.Dump()
		})
		var kp struct {
			Pane harness.Pane `json:"pane"`
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.KillPane", map[string]any{"pane": p.ID}, &kp)
		if kp.Pane.State != "exited" || kp.Pane.Signal() != "SIGHUP" {
			t.Errorf("KillPane via varlinkctl: state %s status %+v, want exited by SIGHUP", kp.Pane.State, kp.Pane.Status)
		}
		checkGone(t, "after KillPane", p.PID())
		d.VarlinkCall(t, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": p.ID}, nil)
		var lp struct {
			Panes []harness.Pane `json:"panes"`
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.ListPanes", map[string]any{}, &lp)
		if len(lp.Panes) != 0 {
			t.Errorf("ListPanes after removal: %v", paneIDs(lp.Panes))
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.RemoveWorkspace", map[string]any{"workspace": cw.Workspace.ID}, nil)
	})

	t.Run("error", func(t *testing.T) {
		r := d.Varlinkctl(t, "call", "dev.signaltty.Mux.GetPane", `{"pane":"pane_000000000000"}`)
		out := r.Stdout + r.Stderr
		if r.Code == 0 || !strings.Contains(out, "dev.signaltty.Mux.NotFound") || !strings.Contains(out, `"not_found.pane"`) {
			t.Errorf("want a failure naming dev.signaltty.Mux.NotFound with code not_found.pane:\n%s", r)
		}
		var cw struct {
			Workspace harness.Workspace `json:"workspace"`
		}
		d.VarlinkCall(t, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": "vctl-err"}, &cw)
		r = d.Varlinkctl(t, "call", "dev.signaltty.Mux.SpawnPane", `{"workspace":"`+cw.Workspace.ID+`","argv":[]}`)
		out = r.Stdout + r.Stderr
		if r.Code == 0 || !strings.Contains(out, "dev.signaltty.Mux.InvalidParams") || !strings.Contains(out, `"invalid_params.argv"`) {
			t.Errorf("want a failure naming dev.signaltty.Mux.InvalidParams with code invalid_params.argv:\n%s", r)
		}
	})
}
