package varlink

import (
	"context"
	"encoding/json"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// The agent methods of dev.signaltty.Mux (docs/agents.md): thin adapters
// over service/agent*.go, service/resume.go and service/notify.go.

func agentOut(p service.Pane, out *mux.Pane) {
	out.Lifecycle, out.Attention, out.Last_message = p.Lifecycle, p.Attention, strOpt(p.LastMessage)
	a := p.Agent
	if a == nil {
		return
	}
	ag := &mux.Agent{Kind: a.Kind, Session_id: strOpt(a.SessionID), Resume_reported: a.ResumeReported, Model: strOpt(a.Model)}
	if len(a.ResumeArgv) > 0 {
		argv := append([]string{}, a.ResumeArgv...)
		ag.Resume_argv = &argv
	}
	if len(a.ConfigEnv) > 0 {
		env := map[string]string{}
		for k, v := range a.ConfigEnv {
			env[k] = v
		}
		ag.Config_env = &env
	}
	out.Agent = ag
}

func notificationOut(n service.Notification) mux.Notification {
	out := mux.Notification{Id: n.ID, Pane: strOpt(n.Pane), Workspace: strOpt(n.Workspace), Title: n.Title,
		Body: strOpt(n.Body), Severity: n.Severity, Source: n.Source, Created_at: timestamp(n.CreatedAt)}
	if !n.ReadAt.IsZero() {
		out.Read_at = strOpt(timestamp(n.ReadAt))
	}
	return out
}

func (m *Mux) SetWorkspace(ctx context.Context, c mux.VarlinkCall, ws string, autoResume *bool) error {
	var w service.Workspace
	var err error
	if autoResume != nil {
		w, err = m.svc.SetWorkspaceAutoResume(ws, *autoResume)
	} else {
		w, _, _, err = m.svc.GetWorkspace(ws)
	}
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySetWorkspace(ctx, workspaceOut(w))
}

func (m *Mux) ResumePane(ctx context.Context, c mux.VarlinkCall, id string, env *map[string]string, envUnset *[]string) error {
	p, lost, err := m.svc.ResumePaneWith(id, restartEnvIn(env, envUnset))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyResumePane(ctx, paneOut(p), namesOut(lost))
}

// restartEnvIn is a resume's or relaunch's env and env_unset.
func restartEnvIn(env *map[string]string, envUnset *[]string) service.RestartEnv {
	var r service.RestartEnv
	if env != nil {
		r.Env = *env
	}
	if envUnset != nil {
		r.Unset = *envUnset
	}
	return r
}

// namesOut is a list of names, nil when empty.
func namesOut(names []string) *[]string {
	if len(names) == 0 {
		return nil
	}
	return &names
}

func (m *Mux) HookEvent(ctx context.Context, c mux.VarlinkCall, agent, event string, pane *string, clientPid *int64, payload *json.RawMessage) error {
	r := service.HookRequest{Agent: agent, Event: event, Pane: str(pane)}
	if clientPid != nil {
		r.ClientPid = int(*clientPid)
	}
	if payload != nil {
		if err := json.Unmarshal(*payload, &r.Payload); err != nil {
			return m.fail(ctx, c, service.Invalid("payload", "object", "payload must be a JSON object"))
		}
	}
	res, err := m.svc.HookEvent(r)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyHookEvent(ctx, res.Accepted, strOpt(res.Reason), strOpt(res.Pane), strOpt(res.Lifecycle), strOpt(res.Attention))
}

func (m *Mux) ReportSession(ctx context.Context, c mux.VarlinkCall, pane *string, clientPid *int64, session string, agent *string, resumeArgv *[]string, model *string) error {
	r := service.ReportRequest{Pane: str(pane), Session: session, Agent: str(agent), Model: str(model)}
	if clientPid != nil {
		r.ClientPid = int(*clientPid)
	}
	if resumeArgv != nil {
		r.ResumeArgv = append([]string{}, *resumeArgv...)
	}
	p, err := m.svc.ReportSession(r)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyReportSession(ctx, paneOut(p))
}

func (m *Mux) MarkSeen(ctx context.Context, c mux.VarlinkCall, id string) error {
	p, err := m.svc.MarkSeen(id)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyMarkSeen(ctx, paneOut(p))
}

func (m *Mux) Notify(ctx context.Context, c mux.VarlinkCall, pane, ws, title, body, severity *string) error {
	n, err := m.svc.Notifications().Add(service.NotifyRequest{Pane: str(pane), Workspace: str(ws), Title: str(title), Body: str(body), Severity: str(severity)})
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyNotify(ctx, notificationOut(n))
}

func (m *Mux) ListNotifications(ctx context.Context, c mux.VarlinkCall, pane *string, unread *bool) error {
	ns := m.svc.Notifications().List(str(pane), unread != nil && *unread)
	out := make([]mux.Notification, 0, len(ns))
	for _, n := range ns {
		out = append(out, notificationOut(n))
	}
	return c.ReplyListNotifications(ctx, out)
}

func (m *Mux) MarkNotificationsRead(ctx context.Context, c mux.VarlinkCall, ids *[]string, pane *string) error {
	var list []string
	if ids != nil {
		list = *ids
	}
	n, err := m.svc.Notifications().MarkRead(list, str(pane))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyMarkNotificationsRead(ctx, int64(n))
}
