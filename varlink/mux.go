package varlink

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// Mux implements dev.signaltty.Mux (devsignalttymux/dev.signaltty.Mux.varlink).
type Mux struct {
	svc     *service.Service
	records *paneRecords // ListPanes' encoded records (pane_records.go)
}

// NewMux returns the dev.signaltty.Mux interface for registration.
func NewMux(svc *service.Service) *mux.VarlinkInterface {
	return mux.VarlinkNew(&Mux{svc: svc, records: newPaneRecords()})
}

var muxErrors = errorsOf(new(mux.VarlinkInterface))

func (m *Mux) fail(ctx context.Context, c mux.VarlinkCall, err error) error {
	return muxErrors.reply(ctx, c.Call, err)
}

func (m *Mux) CreateWorkspace(ctx context.Context, c mux.VarlinkCall, name, cwd, worktree, repo, from *string, argv *[]string, grants *[]mux.Grant) error {
	if name != nil && *name == "" { // absent is the default name; given empty is refused, as by RenameWorkspace
		return m.fail(ctx, c, service.Invalid("name", "empty", "name must not be empty"))
	}
	caller := principalOf(ctx)
	r := service.NewWorkspace{Name: str(name), Cwd: str(cwd), Branch: str(worktree), Repo: str(repo), From: str(from),
		Creator: caller.ID, Grants: grantsIn(grants, func(g mux.Grant) service.Grant { return service.Grant{Right: g.Right, Scope: g.Scope} })}
	if argv != nil {
		r.Argv = *argv
	}
	if grants != nil && len(r.Argv) == 0 {
		return m.fail(ctx, c, service.Invalid("grants", "no_argv", "grants are for the first pane: give argv"))
	}
	if err := m.svc.Access().CheckDelegation(caller, "dev.signaltty.Mux.CreateWorkspace", r.Grants); err != nil {
		return m.fail(ctx, c, err)
	}
	w, p, err := m.svc.CreateWorkspaceWith(ctx, r)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	m.svc.Access().SetCreator("workspace:"+w.ID, caller.ID)
	var pout *mux.Pane
	if p != nil {
		po := paneOut(*p)
		pout = &po
	}
	return c.ReplyCreateWorkspace(ctx, workspaceOut(w), pout)
}

func (m *Mux) ListWorkspaces(ctx context.Context, c mux.VarlinkCall) error {
	ws := m.svc.ListWorkspaces()
	out := make([]mux.Workspace, 0, len(ws))
	caller := principalOf(ctx)
	for _, w := range ws {
		if m.svc.Access().Allowed(caller, service.RightRead, "workspace:"+w.ID) {
			out = append(out, workspaceOut(w))
		}
	}
	return c.ReplyListWorkspaces(ctx, out)
}

func (m *Mux) GetWorkspace(ctx context.Context, c mux.VarlinkCall, ref string, refreshGit *bool) error {
	if refreshGit != nil && *refreshGit {
		if err := m.svc.Git().Refresh(ctx, ref); err != nil {
			return m.fail(ctx, c, err)
		}
	}
	msg, err := m.records.getWorkspace(m.svc, ref) // pane_records.go
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return writeReply(ctx, c.Call, msg)
}

func (m *Mux) RenameWorkspace(ctx context.Context, c mux.VarlinkCall, ref, name string) error {
	w, err := m.svc.RenameWorkspace(ref, name)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRenameWorkspace(ctx, workspaceOut(w))
}

func (m *Mux) RemoveWorkspace(ctx context.Context, c mux.VarlinkCall, ref string, recursive, removeWorktree *bool) error {
	ctx2, stop := hangup(ctx, c.Call)
	var removed service.RemovedWorktree
	var err error
	if removeWorktree != nil && *removeWorktree {
		removed, err = m.svc.Git().RemoveWorkspace(ctx2, ref, recursive != nil && *recursive)
	} else {
		err = m.svc.RemoveWorkspace(ctx2, ref, recursive != nil && *recursive)
	}
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRemoveWorkspace(ctx, strOpt(removed.Path), strOpt(removed.Branch))
}

func (m *Mux) SetWorkspaceCwd(ctx context.Context, c mux.VarlinkCall, ref, cwd string) error {
	w, err := m.svc.SetWorkspaceCwd(ctx, ref, cwd)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySetWorkspaceCwd(ctx, workspaceOut(w))
}

func (m *Mux) CreateTab(ctx context.Context, c mux.VarlinkCall, ws string, title *string) error {
	t, err := m.svc.CreateTab(ws, str(title))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	m.svc.Access().SetCreator("tab:"+t.ID, principalOf(ctx).ID)
	return c.ReplyCreateTab(ctx, tabOut(t))
}

func (m *Mux) RemoveTab(ctx context.Context, c mux.VarlinkCall, id string, recursive *bool) error {
	ctx2, stop := hangup(ctx, c.Call)
	err := m.svc.RemoveTab(ctx2, id, recursive != nil && *recursive)
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRemoveTab(ctx)
}

func (m *Mux) SpawnPane(ctx context.Context, c mux.VarlinkCall, ws, tab, split, axis *string, argv []string, cwd *string, env *map[string]string, envUnset *[]string, cols, rows *int64, agent *string, assign *bool, historyRows, memoryMax, pidsMax *int64, grants *[]mux.Grant) error {
	r := service.SpawnRequest{Workspace: str(ws), Tab: str(tab), Split: str(split), Axis: str(axis),
		Argv: argv, Cwd: str(cwd), Cols: intp(cols), Rows: intp(rows), Agent: str(agent), AssignSession: assign != nil && *assign,
		HistoryRows: intp(historyRows), Limits: limitsIn(memoryMax, pidsMax)}
	if env != nil {
		r.Env = *env
	}
	if envUnset != nil {
		r.EnvUnset = *envUnset
	}
	caller := principalOf(ctx)
	r.Creator, r.Grants = caller.ID, grantsIn(grants, func(g mux.Grant) service.Grant { return service.Grant{Right: g.Right, Scope: g.Scope} })
	if err := m.svc.Access().CheckDelegation(caller, "dev.signaltty.Mux.SpawnPane", r.Grants); err != nil {
		return m.fail(ctx, c, err)
	}
	p, err := m.svc.SpawnPane(r)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySpawnPane(ctx, paneOut(p))
}

func (m *Mux) ListPanes(ctx context.Context, c mux.VarlinkCall, ws, tab *string) error {
	msg, err := m.records.listPanes(m.svc, str(ws), str(tab), paneReader(m.svc, principalOf(ctx)))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return writeReply(ctx, c.Call, msg)
}

func (m *Mux) GetPane(ctx context.Context, c mux.VarlinkCall, id string) error {
	p, err := m.svc.GetPane(id)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyGetPane(ctx, paneOut(p))
}

func (m *Mux) SendInput(ctx context.Context, c mux.VarlinkCall, id string, text, data *string, baseline *bool) error {
	in, ierr := inputBytes(text, data)
	if ierr != nil {
		return m.fail(ctx, c, ierr)
	}
	var base *mux.OutputBaseline
	if baseline == nil || *baseline {
		if b, err := m.svc.OutputBaselineOf(id); err == nil { // else SendInput fails as it should
			base = &mux.OutputBaseline{Epoch: b.Epoch, Row: b.Row, Digest: b.Digest}
		}
	}
	ctx2, stop := hangup(ctx, c.Call)
	n, err := m.svc.SendInput(ctx2, id, in)
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySendInput(ctx, int64(n), base)
}

// inputBytes is the input of SendInput and SendWait: exactly one of text
// and data (base64). Errors: invalid_params.input, invalid_params.data.
func inputBytes(text, data *string) ([]byte, error) {
	switch {
	case (text == nil) == (data == nil):
		return nil, service.Invalid("input", "exclusive", "exactly one of text and data is required")
	case text != nil:
		return []byte(*text), nil
	}
	in, err := base64.StdEncoding.DecodeString(*data)
	if err != nil {
		return nil, service.Invalid("data", "base64", "data is not valid base64: %v", err)
	}
	return in, nil
}

func (m *Mux) SetSplitRatio(ctx context.Context, c mux.VarlinkCall, tab, pane string, ratio float64) error {
	t, err := m.svc.SetSplitRatio(tab, pane, ratio)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySetSplitRatio(ctx, tabOut(t))
}

func (m *Mux) ResizePane(ctx context.Context, c mux.VarlinkCall, id string, cols, rows int64) error {
	p, err := m.svc.ResizePane(id, int(cols), int(rows))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyResizePane(ctx, paneOut(p))
}

func (m *Mux) SignalPane(ctx context.Context, c mux.VarlinkCall, id, signal string) error {
	if err := m.svc.SignalPane(id, signal); err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySignalPane(ctx)
}

func (m *Mux) CaptureRows(ctx context.Context, c mux.VarlinkCall, id string, start, end, epoch *int64, trim *bool,
	last *int64, history, clamp, escapes *bool, maxBytes *int64) error {
	cap, err := m.svc.CaptureRows(id, service.CaptureRequest{Start: start, End: end, Epoch: epoch, Last: last, MaxBytes: maxBytes,
		History: isTrue(history), Clamp: isTrue(clamp), Trim: isTrue(trim), Escapes: isTrue(escapes)})
	if err != nil {
		return m.fail(ctx, c, err)
	}
	lines := cap.Lines
	if lines == nil {
		lines = []string{}
	}
	return c.ReplyCaptureRows(ctx, cap.Epoch, cap.Oldest, cap.End, cap.First, int64(cap.Cols), int64(cap.Rows), cap.Screen, lines,
		cap.RestoredRows, cap.Next, cap.Clamped, cap.Cut)
}

func (m *Mux) RelaunchPane(ctx context.Context, c mux.VarlinkCall, id string, env *map[string]string, envUnset *[]string) error {
	p, lost, err := m.svc.RelaunchPaneWith(id, restartEnvIn(env, envUnset))
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRelaunchPane(ctx, paneOut(p), namesOut(lost))
}

func (m *Mux) KillPane(ctx context.Context, c mux.VarlinkCall, id string, signal *string, graceMs *int64) error {
	grace, err := graceOf(graceMs)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	ctx2, stop := hangup(ctx, c.Call)
	p, err := m.svc.KillPane(ctx2, id, str(signal), grace)
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyKillPane(ctx, paneOut(p))
}

func (m *Mux) RemovePane(ctx context.Context, c mux.VarlinkCall, id string, kill *bool) error {
	ctx2, stop := hangup(ctx, c.Call)
	err := m.svc.RemovePane(ctx2, id, kill != nil && *kill)
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRemovePane(ctx)
}

func workspaceOut(w service.Workspace) mux.Workspace {
	return mux.Workspace{Id: w.ID, Name: w.Name, Handle: w.Handle, Cwd: w.Cwd, Tabs: w.Tabs,
		Active_tab: strOpt(w.ActiveTab), Created_at: timestamp(w.CreatedAt), Git: gitOut(w.Git),
		Auto_resume: w.AutoResume}
}

func gitOut(g *service.GitState) *mux.GitState {
	if g == nil {
		return nil
	}
	return &mux.GitState{Root: g.Root, Branch: strOpt(g.Branch), Detached: g.Detached, Commit: strOpt(g.Commit),
		Dirty: g.Dirty, Worktree: g.Worktree, Repo: g.Repo, Missing: g.Missing}
}

func tabOut(t service.Tab) mux.Tab {
	return mux.Tab{Id: t.ID, Workspace: t.Workspace, Title: t.Title, Layout: layoutOut(t.Layout),
		Active_pane: strOpt(t.ActivePane), Created_at: timestamp(t.CreatedAt), Run: strOpt(t.Run)}
}

func layoutOut(l *service.Layout) *mux.Layout {
	switch {
	case l == nil:
		return nil
	case l.Pane != "":
		return &mux.Layout{Kind: "pane", Pane: &l.Pane}
	}
	ratio := l.Ratio
	return &mux.Layout{Kind: "split", Axis: &l.Axis, Ratio: &ratio, First: layoutOut(l.First), Second: layoutOut(l.Second)}
}

func paneOut(p service.Pane) mux.Pane {
	out := mux.Pane{Id: p.ID, Workspace: p.Workspace, Tab: p.Tab, Title: p.Title, Argv0: p.Argv0, Argv: p.Argv,
		Cwd: p.Cwd, Reported_cwd: strOpt(p.ReportedCwd), Env: p.Env, Cols: int64(p.Cols), Rows: int64(p.Rows),
		State: p.State, Terminating: p.Terminating, Screen: p.Screen, Created_at: timestamp(p.CreatedAt),
		Restore_state: p.RestoreState, Restored_rows: p.RestoredRows, History_rows: int64(p.HistoryRows), Cgroup: paneCgroupOut(p.Cgroup)}
	if p.Pid != 0 {
		pid := int64(p.Pid)
		out.Pid = &pid
	}
	if p.WaitBaseline != nil {
		b := baselineOut(*p.WaitBaseline)
		out.Wait_baseline = &b
	}
	out.Status = waitStatusOut(p.Status)
	if !p.ExitedAt.IsZero() {
		out.Exited_at = strOpt(timestamp(p.ExitedAt))
	}
	agentOut(p, &out)
	return out
}

func panesOut(ps []service.Pane) []mux.Pane {
	out := make([]mux.Pane, 0, len(ps))
	for _, p := range ps {
		out = append(out, paneOut(p))
	}
	return out
}

// timestamp formats t as RFC 3339 UTC with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// waitStatusOut is a leader's wait status on the wire (nil: none).
func waitStatusOut(st *service.WaitStatus) *mux.WaitStatus {
	if st == nil {
		return nil
	}
	ws := &mux.WaitStatus{Signal: strOpt(st.Signal), Core_dumped: st.CoreDumped}
	if st.Code != nil {
		code := int64(*st.Code)
		ws.Code = &code
	}
	return ws
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func strOpt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func intp(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// graceOf turns an optional grace_ms into a duration; absent is -1 (the
// service's default).
func graceOf(ms *int64) (time.Duration, error) {
	switch {
	case ms == nil:
		return -1, nil
	case *ms < 0:
		return 0, service.Invalid("grace_ms", "range", "grace_ms must not be negative")
	}
	return time.Duration(*ms) * time.Millisecond, nil
}
