package tests

// Every verb of every interface is checked (docs/security.md, "Checks"):
// through varlinkctl from inside a pane whose principal holds only its
// default grants, each call on the owner's resources, and on missing
// ones, is denied with its interface's Denied error, and nothing changes.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestEveryVerbIsDeniedOnAnothersResources(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "owner").ID
	p := d.Spawn(t, []string{"--workspace", ws}, "sleep", "100")
	var tabs struct{ Tab harness.Tab }
	d.JSON(t, &tabs, "tab", "create", "--workspace", ws)
	st := harness.CLIOf(d).MustStart(t, harness.ArgvSpec("owner-run", ws, "sleep", "100"))
	t.Cleanup(func() { d.CLI(t, "run", "cancel", "--run", st.Run, "--grace-ms", "200") })
	agent := d.NewInPane(t, "--workspace", d.CreateWorkspace(t, "agent").ID)
	calls := []struct{ method, params, right string }{
		{"Server.Shutdown", `{}`, "admin"},
		{"Server.Save", `{}`, "admin"},
		{"Server.StopLeftovers", `{}`, "admin"},
		{"Server.ListSnapshots", `{}`, "admin"},
		{"Server.RestoreSnapshot", `{"name":"x"}`, "admin"},
		{"Server.SetConfig", `{"run_max_active":1}`, "admin"},
		{"Server.GetConfig", `{}`, "read"},
		{"Server.GetStatus", `{}`, "read"},
		{"Mux.CreateWorkspace", `{"name":"n"}`, "spawn"},
		{"Mux.GetWorkspace", `{"workspace":"%W"}`, "read"},
		{"Mux.RenameWorkspace", `{"workspace":"%W","name":"n"}`, "write"},
		{"Mux.RemoveWorkspace", `{"workspace":"%W","recursive":true}`, "write"},
		{"Mux.SetWorkspaceCwd", `{"workspace":"%W","cwd":"/"}`, "write"},
		{"Mux.SetWorkspace", `{"workspace":"%W","auto_resume":true}`, "write"},
		{"Mux.RemoveExitedPanes", `{"workspace":"%W"}`, "write"},
		{"Mux.CreateTab", `{"workspace":"%W"}`, "spawn"},
		{"Mux.RemoveTab", `{"tab":"%T","recursive":true}`, "write"},
		{"Mux.SetSplitRatio", `{"tab":"%T","pane":"%P","ratio":0.3}`, "write"},
		{"Mux.SpawnPane", `{"tab":"%T","argv":["true"]}`, "spawn"},
		{"Mux.SpawnPane", `{"workspace":"%W","argv":["true"]}`, "spawn"},
		{"Mux.SpawnPane", `{"split":"%P","axis":"cols","argv":["true"]}`, "spawn"},
		{"Mux.GetPane", `{"pane":"%P"}`, "read"},
		{"Mux.SendInput", `{"pane":"%P","text":"x"}`, "write"},
		{"Mux.SendWait", `{"pane":"%P","text":"x","timeout_ms":1}`, "write"},
		{"Mux.WaitOutput", `{"pane":"%P","timeout_ms":1}`, "read"},
		{"Mux.ResizePane", `{"pane":"%P","cols":10,"rows":10}`, "write"},
		{"Mux.SignalPane", `{"pane":"%P","signal":"TERM"}`, "write"},
		{"Mux.AttachPane", `{"pane":"%P"}`, "read"},
		{"Mux.CaptureRows", `{"pane":"%P"}`, "read"},
		{"Mux.KillPane", `{"pane":"%P"}`, "write"},
		{"Mux.RelaunchPane", `{"pane":"%P"}`, "write"},
		{"Mux.RemovePane", `{"pane":"%P","kill":true}`, "write"},
		{"Mux.ResumePane", `{"pane":"%P"}`, "write"},
		{"Mux.MarkSeen", `{"pane":"%P"}`, "write"},
		{"Mux.Wait", `{"pane":"%P","until":["idle"],"timeout_ms":1}`, "read"},
		{"Mux.HookEvent", `{"agent":"claude","event":"Stop","pane":"%P"}`, "write"},
		{"Mux.ReportSession", `{"pane":"%P","session":"s"}`, "write"},
		{"Mux.Notify", `{"pane":"%P","title":"t"}`, "write"},
		{"Mux.Notify", `{"workspace":"%W","title":"t"}`, "write"},
		{"Mux.ListNotifications", `{"pane":"%P"}`, "read"},
		{"Mux.MarkNotificationsRead", `{"pane":"%P"}`, "write"},
		{"Run.Start", `{"key":"k","workspace":"%W","argv":["true"]}`, "spawn"},
		{"Run.Start", `{"key":"k","pane":"%P","axis":"cols","argv":["true"]}`, "spawn"},
		{"Run.Get", `{"run":"%R"}`, "read"},
		{"Run.Wait", `{"run":"%R","timeout_ms":1}`, "read"},
		{"Run.Cancel", `{"run":"%R"}`, "write"},
	}
	fill := func(s string, missing bool) string {
		w, tb, pn, rn := ws, tabs.Tab.ID, p.ID, st.Run
		if missing {
			w, tb, pn, rn = "ws_000000000000", "tab_000000000000", "pane_000000000000", "r999"
		}
		return strings.NewReplacer("%W", w, "%T", tb, "%P", pn, "%R", rn).Replace(s)
	}
	world := d.TakeWorld(t)
	for _, c := range calls {
		for _, missing := range []bool{false, true} {
			if missing && !strings.Contains(c.params, "%") {
				continue
			}
			name := fmt.Sprintf("%s %s", c.method, fill(c.params, missing))
			r := agent.Varlinkctl(t, "dev.signaltty."+c.method, fill(c.params, missing))
			iface := strings.SplitN(c.method, ".", 2)[0]
			if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "dev.signaltty."+iface+".Denied") ||
				!strings.Contains(r.Stdout+r.Stderr, `"denied.`+c.right+`"`) {
				t.Errorf("%s: want dev.signaltty.%s.Denied with denied.%s:\n%s", name, iface, c.right, r)
			}
		}
	}
	world.Unchanged(t, "denied calls")
	// Listings and streams are filtered instead: the agent sees none of the
	// owner's workspaces, panes or runs.
	for _, c := range []struct{ method, params, not string }{
		{"Mux.ListWorkspaces", `{}`, ws},
		{"Mux.ListPanes", `{}`, p.ID},
		{"Run.List", `{}`, st.Run},
	} {
		r := agent.Varlinkctl(t, "dev.signaltty."+c.method, c.params)
		if r.Code != 0 || strings.Contains(r.Stdout, c.not) {
			t.Errorf("%s shows the owner's %s:\n%s", c.method, c.not, r)
		}
	}
}
