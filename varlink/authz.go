package varlink

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
)

// Authorization of every call (docs/security.md, "Checks"). One table says,
// per method, which right it needs and where its target is; Guard checks
// it before the method's handler runs, before any lookup, so a missing
// target and a forbidden one get the same denied.<right>. Methods that list
// (ListWorkspaces, ListPanes, ListPaneFields, Run.List, Events.Subscribe) are checked per
// item by their handlers instead (filtered, never denied).

// target names where a call's resource is: the first parameter present of
// params, as kind:<value>; none present: fallback ("" = no target check).
type target struct {
	kind  string
	param string
}

type check struct {
	right    string
	targets  []target // tried in order; the first present names the resource
	fallback string   // the resource when no target parameter is present
	gate     bool     // the caller must hold right somewhere (dispatch gate) even without a target
	// find names the resource instead of targets (hook attribution)
	find func(svc *service.Service, params map[string]json.RawMessage) string
}

func on(right string, fallback string, ts ...target) check {
	return check{right: right, targets: ts, fallback: fallback}
}

var (
	ws   = func(p string) target { return target{"workspace", p} }
	tb   = func(p string) target { return target{"tab", p} }
	pn   = func(p string) target { return target{"pane", p} }
	rn   = func(p string) target { return target{"run", p} }
	read = service.RightRead
	wr   = service.RightWrite
	sp   = service.RightSpawn
	adm  = service.RightAdmin
)

// checks is the table; a method not in it is refused to everyone but the
// owner (denied.admin), so a new method is never open by accident.
var checks = map[string]check{
	"dev.signaltty.Server.GetStatus":       on(read, "*"),
	"dev.signaltty.Server.WhoAmI":          {},
	"dev.signaltty.Server.Shutdown":        on(adm, "*"),
	"dev.signaltty.Server.Save":            on(adm, "*"),
	"dev.signaltty.Server.StopLeftovers":   on(adm, "*"),
	"dev.signaltty.Server.ListSnapshots":   on(adm, "*"),
	"dev.signaltty.Server.RestoreSnapshot": on(adm, "*"),
	"dev.signaltty.Server.GetConfig":       on(read, "*"),
	"dev.signaltty.Server.SetConfig":       on(adm, "*"),

	"dev.signaltty.Mux.CreateWorkspace":       on(sp, "workspace:*"),
	"dev.signaltty.Mux.ListWorkspaces":        {},
	"dev.signaltty.Mux.GetWorkspace":          on(read, "", ws("workspace")),
	"dev.signaltty.Mux.RenameWorkspace":       on(wr, "", ws("workspace")),
	"dev.signaltty.Mux.RemoveWorkspace":       on(wr, "", ws("workspace")),
	"dev.signaltty.Mux.SetWorkspaceCwd":       on(wr, "", ws("workspace")),
	"dev.signaltty.Mux.SetWorkspace":          on(wr, "", ws("workspace")),
	"dev.signaltty.Mux.RemoveExitedPanes":     on(wr, "", ws("workspace")),
	"dev.signaltty.Mux.CreateTab":             on(sp, "", ws("workspace")),
	"dev.signaltty.Mux.RemoveTab":             on(wr, "", tb("tab")),
	"dev.signaltty.Mux.SetSplitRatio":         on(wr, "", tb("tab")),
	"dev.signaltty.Mux.SpawnPane":             {right: sp, targets: []target{ws("workspace"), tb("tab"), pn("split")}, gate: true},
	"dev.signaltty.Mux.ListPanes":             {},
	"dev.signaltty.Mux.ListPaneFields":        {},
	"dev.signaltty.Mux.GetPane":               on(read, "", pn("pane")),
	"dev.signaltty.Mux.SendInput":             on(wr, "", pn("pane")),
	"dev.signaltty.Mux.SendWait":              on(wr, "", pn("pane")),
	"dev.signaltty.Mux.WaitOutput":            on(read, "", pn("pane")),
	"dev.signaltty.Mux.ResizePane":            on(wr, "", pn("pane")),
	"dev.signaltty.Mux.SignalPane":            on(wr, "", pn("pane")),
	"dev.signaltty.Mux.AttachPane":            on(read, "", pn("pane")),
	"dev.signaltty.Mux.CaptureRows":           on(read, "", pn("pane")),
	"dev.signaltty.Mux.KillPane":              on(wr, "", pn("pane")),
	"dev.signaltty.Mux.RelaunchPane":          on(wr, "", pn("pane")),
	"dev.signaltty.Mux.RemovePane":            on(wr, "", pn("pane")),
	"dev.signaltty.Mux.ResumePane":            on(wr, "", pn("pane")),
	"dev.signaltty.Mux.HookEvent":             {right: wr, find: hookPane},
	"dev.signaltty.Mux.ReportSession":         {right: wr, find: hookPane},
	"dev.signaltty.Mux.MarkSeen":              on(wr, "", pn("pane")),
	"dev.signaltty.Mux.Wait":                  on(read, "", pn("pane")),
	"dev.signaltty.Mux.Notify":                on(wr, "*", pn("pane"), ws("workspace")),
	"dev.signaltty.Mux.ListNotifications":     on(read, "*", pn("pane")),
	"dev.signaltty.Mux.MarkNotificationsRead": on(wr, "*", pn("pane")),

	"dev.signaltty.Run.Start":  {right: sp, targets: []target{ws("workspace"), pn("pane")}, gate: true},
	"dev.signaltty.Run.Wait":   on(read, "", rn("run")),
	"dev.signaltty.Run.Get":    on(read, "", rn("run")),
	"dev.signaltty.Run.List":   {},
	"dev.signaltty.Run.Cancel": on(wr, "", rn("run")),

	"dev.signaltty.Events.Subscribe": {},
}

// Guard wraps an interface so that every call is authorized by the table
// and its handler sees the caller's principal (principalOf).
func Guard(svc *service.Service, d Dispatcher) Dispatcher { return guarded{d, svc} }

type guarded struct {
	Dispatcher
	svc *service.Service
}

func (g guarded) VarlinkDispatch(ctx context.Context, c vl.Call, method string) error {
	ctx = withPrincipal(ctx, c)
	p := principalOf(ctx)
	verb := g.VarlinkGetName() + "." + method
	if p.IsOwner() {
		return g.Dispatcher.VarlinkDispatch(ctx, c, method)
	}
	ck, ok := checks[verb]
	if !ok {
		ck = on(adm, "*")
	}
	if res := ck.resource(g.svc, c); ck.right != "" {
		if ck.gate && !p.HoldsAny(ck.right) && res == "" {
			res = "*"
		}
		if res != "" {
			if err := g.svc.Access().Authorize(p, verb, ck.right, res); err != nil {
				return c.ReplyError(ctx, g.VarlinkGetName()+".Denied", errorParams(err))
			}
		}
	}
	return g.Dispatcher.VarlinkDispatch(ctx, c, method)
}

// resource is the call's target as "kind:id", the fallback, or "" when
// more than one target parameter is given (the handler's invalid_params
// says so).
func (ck check) resource(svc *service.Service, c vl.Call) string {
	if len(ck.targets) == 0 && ck.find == nil {
		return ck.fallback
	}
	var params map[string]json.RawMessage
	if c.In != nil && c.In.Parameters != nil {
		_ = json.Unmarshal(*c.In.Parameters, &params)
	}
	if ck.find != nil {
		return ck.find(svc, params)
	}
	found := ""
	n := 0
	for _, t := range ck.targets {
		raw, ok := params[t.param]
		if !ok || string(raw) == "null" {
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			var i int64
			if err := json.Unmarshal(raw, &i); err != nil {
				continue
			}
			v = strconv.FormatInt(i, 10)
		}
		n++
		if found == "" {
			found = t.kind + ":" + v
		}
	}
	if n > 1 && ck.gate {
		return ""
	}
	if found == "" {
		return ck.fallback
	}
	return found
}

func errorParams(err error) map[string]any {
	se, _ := err.(*service.Error)
	if se == nil {
		return map[string]any{"code": "internal", "message": err.Error(), "data": map[string]any{}}
	}
	data := se.Data
	if data == nil {
		data = map[string]any{}
	}
	return map[string]any{"code": se.Code, "message": se.Message, "data": data}
}

// grantsIn converts IDL grants (nil stays nil: the default).
func grantsIn[G any](gs *[]G, conv func(G) service.Grant) []service.Grant {
	if gs == nil {
		return nil
	}
	out := make([]service.Grant, 0, len(*gs))
	for _, g := range *gs {
		out = append(out, conv(g))
	}
	return out
}

// hookPane is the pane an agent's hook or session report is for, as the
// service attributes it (docs/agents.md): the named pane if it exists,
// else the pane of client_pid's ancestry, else the named (missing) pane;
// "" when nothing is named (the service then attributes nothing).
func hookPane(svc *service.Service, params map[string]json.RawMessage) string {
	var pane string
	if raw, ok := params["pane"]; ok && json.Unmarshal(raw, &pane) == nil && pane != "" {
		if _, err := svc.GetPane(pane); err == nil {
			return "pane:" + pane
		}
	}
	var pid int
	if raw, ok := params["client_pid"]; ok && json.Unmarshal(raw, &pid) == nil && pid > 0 {
		if id := svc.Access().PaneOfProcess(pid); id != "" {
			return "pane:" + id
		}
	}
	if pane != "" { // a missing pane that no ancestry replaces: denied as any
		return "pane:" + pane
	}
	return ""
}
