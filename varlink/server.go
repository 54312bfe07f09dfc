package varlink

import (
	"context"
	"errors"
	"time"

	"github.com/signaltty/signaltty/logind"
	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/errcode"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	vl "github.com/varlink/go/varlink"
)

// ServerIface implements dev.signaltty.Server (devsignalttyserver/dev.signaltty.Server.varlink).
type ServerIface struct {
	svc *service.Service
	// shutdown asks the daemon to stop; called after the reply was sent.
	shutdown func()
	// logind reports the host-shutdown monitor; nil: no monitor ("off").
	logind func() logind.Status
	// clients are the connection limits GetConfig reports (budget.go).
	clients Limits
	// sessionBus reports the daemon on the session bus; nil: not reported.
	sessionBus func() SessionBusStatus
}

// SessionBusStatus is the daemon's presence on the session bus as
// Server.GetStatus reports it in session_bus (docs/dbus.md, "Connection"):
// State is "on", "connecting", "reconnecting", "none" or "off", Reason why
// it is not on the bus ("" when it is), Since when State was entered.
type SessionBusStatus struct {
	State, Reason string
	Since         time.Time
}

// WithSessionBusStatus makes GetStatus report the session bus through f.
func WithSessionBusStatus(f func() SessionBusStatus) ServerOption {
	return func(s *ServerIface) { s.sessionBus = f }
}

// ServerOption configures NewServerIface.
type ServerOption func(*ServerIface)

// WithLogindStatus makes GetStatus report the logind monitor through f.
func WithLogindStatus(f func() logind.Status) ServerOption {
	return func(s *ServerIface) { s.logind = f }
}

// WithClientLimits makes GetConfig report l as the connection limits (the
// ones given to Server.SetLimits); without it the defaults.
func WithClientLimits(l Limits) ServerOption {
	return func(s *ServerIface) { s.clients = l }
}

// NewServerIface returns the dev.signaltty.Server interface for registration.
// shutdown is called once Server.Shutdown has replied.
func NewServerIface(svc *service.Service, shutdown func(), opts ...ServerOption) *srv.VarlinkInterface {
	s := &ServerIface{svc: svc, shutdown: shutdown, clients: DefaultLimits()}
	for _, o := range opts {
		o(s)
	}
	return srv.VarlinkNew(s)
}

// WhoAmI replies with the caller's principal (identity.go).
func (s *ServerIface) WhoAmI(ctx context.Context, c srv.VarlinkCall) error {
	p := principalOf(ctx)
	grants := []srv.Grant{}
	if p.IsOwner() {
		for _, r := range []string{service.RightRead, service.RightWrite, service.RightSpawn, service.RightAdmin} {
			grants = append(grants, srv.Grant{Right: r, Scope: "*"})
		}
	}
	for _, g := range p.Grants {
		grants = append(grants, srv.Grant{Right: g.Right, Scope: g.Scope})
	}
	pid := int64(0)
	if gc, ok := c.Conn.(vl.GetNetConn); ok {
		if cc, ok := gc.NetConn().(*conn); ok && cc.peer != nil {
			pid = int64(cc.peer.pid)
		}
	}
	var reason *string
	if p.HelperPid > 0 {
		reason = strOpt("shared_helper")
	} else if p.Unattributed {
		reason = strOpt("unattributed")
	}
	return c.ReplyWhoAmI(ctx, p.ID, strOpt(p.Pane), pid, grants, reason, strOpt(s.svc.Status().Address), strOpt(s.svc.Persistence().Status().Dir))
}

func (s *ServerIface) GetStatus(ctx context.Context, c srv.VarlinkCall) error {
	return c.ReplyGetStatus(ctx, s.status(s.svc.Status()))
}

func (s *ServerIface) status(st service.Status) srv.Status {
	ps := s.svc.Persistence().Status()
	p := srv.Persistence{Enabled: ps.Enabled, State_dir: ps.Dir, Dirty: ps.Dirty, Frozen: ps.Frozen,
		Last_bytes: ps.LastBytes, Last_ms: ps.LastTook.Milliseconds(), Last_error: strOpt(ps.LastError),
		Restored_from: ps.Restored, Restored_at_runtime: runtimeRestoreOut(ps.Runtime)}
	if !ps.LastSave.IsZero() {
		p.Last_saved_at = strOpt(timestamp(ps.LastSave))
	}
	return srv.Status{Version: st.Version, Source: st.Source, Address: st.Address,
		Pid: int64(st.Pid), Socket_activated: st.SocketActivated, Started_at: timestamp(st.StartedAt),
		Uptime_ms: st.Uptime.Milliseconds(), Workspaces: int64(st.Workspaces), Tabs: int64(st.Tabs),
		Panes: int64(st.Panes), Live_panes: int64(st.LivePanes), Seq: st.Seq, Persistence: p,
		Journal: journalOut(s.svc.Publisher().JournalStatus()),
		Runs:    srv.Runs{Active: int64(st.RunsActive), Retained: int64(st.RunsRetained), Started: st.RunsStarted, Escaped: int64(st.Escaped)},
		Logind:  s.logindStatus(st.StartedAt), Cgroups: cgroupsOut(s.svc.Cgroups()), Denials: denialsOut(s.svc.Access().DenialCounts()),
		Unattributed: unattributedOut(s.svc.Access().UnattributedCallers()), Shared_helpers: sharedHelpersOut(s.svc.Access().SharedHelpers()), Previous_daemons: previousDaemonsOut(s.svc.Leftovers().PreviousDaemons()),
		Session_bus: s.sessionBusStatus(st.StartedAt)}
}

// sessionBusStatus is GetStatus's session_bus; nil without a reporter.
func (s *ServerIface) sessionBusStatus(started time.Time) *srv.SessionBus {
	if s.sessionBus == nil {
		return nil
	}
	b := s.sessionBus()
	since := b.Since
	if since.IsZero() {
		since = started
	}
	return &srv.SessionBus{State: b.State, Reason: strOpt(b.Reason), Since: timestamp(since)}
}

// runtimeRestoreOut is the last snapshot restore while running, nil if none.
func runtimeRestoreOut(r service.RuntimeRestore) *srv.RuntimeRestore {
	if r.From == "" {
		return nil
	}
	return &srv.RuntimeRestore{From: r.From, At: timestamp(r.At), Kept: strOpt(r.Kept), Rows_kept: r.TailsKept}
}

func journalOut(j service.JournalStatus) srv.Journal {
	lost := []srv.JournalRange{}
	for _, g := range j.Lost {
		lost = append(lost, srv.JournalRange{First: g.First, Last: g.Last})
	}
	outages := []srv.JournalOutage{}
	for _, o := range j.Outages {
		out := srv.JournalOutage{Broke_at: timestamp(o.BrokeAt), First_seq: o.FirstSeq, Last_seq: o.LastSeq, Error: o.Error}
		if !o.RecoveredAt.IsZero() {
			out.Recovered_at = strOpt(timestamp(o.RecoveredAt))
		}
		outages = append(outages, out)
	}
	return srv.Journal{Enabled: j.Enabled, Seq: j.Seq, Published: j.Published, Reserved: j.Reserved,
		Retained_after: j.RetainedAfter, Broken_through: j.BrokenThrough, Lost: lost, Outages: outages,
		Problems: append([]string{}, j.Problems...), Error: strOpt(j.Error)}
}

// logindStatus reports the logind monitor; "off" since start without one.
func (s *ServerIface) logindStatus(started time.Time) srv.Logind {
	ls := logind.Status{State: logind.Off}
	if s.logind != nil {
		ls = s.logind()
	}
	tsOpt := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		return strOpt(timestamp(t))
	}
	msOpt := func(d time.Duration, ok bool) *int64 {
		if !ok {
			return nil
		}
		ms := d.Milliseconds()
		return &ms
	}
	since := ls.Since
	if since.IsZero() {
		since = started
	}
	saved := !ls.LastSaveAt.IsZero()
	return srv.Logind{State: string(ls.State), Since: timestamp(since), Holding: ls.Holding,
		Next_retry_at: tsOpt(ls.NextRetry), Last_error: strOpt(ls.LastError), Last_error_at: tsOpt(ls.LastErrorAt),
		Inhibit_delay_ms: msOpt(ls.InhibitDelay, ls.InhibitDelay > 0), Owner: strOpt(ls.Owner),
		Inhibits: int64(ls.Inhibits), Last_save_at: tsOpt(ls.LastSaveAt),
		Last_save_ms: msOpt(ls.LastSaveTook, saved), Last_release_ms: msOpt(ls.LastSaveRelease, saved && ls.LastSaveRelease > 0),
		Last_save_error: strOpt(ls.LastSaveError)}
}

func (s *ServerIface) Save(ctx context.Context, c srv.VarlinkCall) error {
	res, err := s.svc.Persistence().Save("request")
	if errors.Is(err, service.ErrPersistenceOff) {
		err = &service.Error{Code: errcode.UnavailablePersistence, Message: "persistence is off", Data: map[string]any{}}
	} else if err != nil {
		err = &service.Error{Code: errcode.CodeInternal, Message: "saving the snapshot failed: " + err.Error(), Data: map[string]any{}}
	}
	if err != nil {
		return serverErrors.reply(ctx, c.Call, err)
	}
	return c.ReplySave(ctx, res.Path, res.Bytes, res.Duration.Milliseconds())
}

func (s *ServerIface) ListSnapshots(ctx context.Context, c srv.VarlinkCall) error {
	list, err := s.svc.Persistence().ListSnapshots()
	if err != nil {
		return serverErrors.reply(ctx, c.Call, err)
	}
	out := make([]srv.SnapshotEntry, 0, len(list))
	for _, e := range list {
		out = append(out, srv.SnapshotEntry{Name: e.Name, Saved_at: timestamp(e.SavedAt), Bytes: e.Bytes,
			Workspaces: int64(e.Workspaces), Panes: int64(e.Panes), Rows_kept: &e.TailsKept})
	}
	return c.ReplyListSnapshots(ctx, out)
}

func (s *ServerIface) RestoreSnapshot(ctx context.Context, c srv.VarlinkCall, name string) error {
	r, err := s.svc.RestoreSnapshot(name)
	if err != nil {
		return serverErrors.reply(ctx, c.Call, err)
	}
	return c.ReplyRestoreSnapshot(ctx, s.status(r.Status), strOpt(r.Kept), &r.TailsKept)
}

func (s *ServerIface) Shutdown(ctx context.Context, c srv.VarlinkCall) error {
	err := c.ReplyShutdown(ctx)
	s.shutdown()
	return err
}

func (s *ServerIface) configOut(c service.RunConfig) srv.Config {
	return srv.Config{Run: srv.RunConfig{Max_active: int64(c.MaxActive), Retain_count: int64(c.RetainCount),
		Retain_ms: c.RetainMs, Retain_bytes: c.RetainBytes, Remove_panes: c.RemovePanes}, Save_interval_ms: s.svc.Persistence().SaveInterval().Milliseconds(),
		History_rows: int64(s.svc.Settings().HistoryRows()), Save_output_interval_ms: s.svc.Persistence().SaveOutputInterval().Milliseconds(),
		Emulator_release_ms: s.svc.Settings().EmulatorReleaseAfter().Milliseconds(), Limits: s.limitsOut(),
		Origins: originsOut(s.svc.Settings().Origins()), Settings_file: strOpt(s.svc.Settings().File())}
}

func originsOut(os []service.SettingOrigin) []srv.SettingOrigin {
	out := make([]srv.SettingOrigin, len(os))
	for i, o := range os {
		out[i] = srv.SettingOrigin{Name: o.Name, Origin: o.Origin}
	}
	return out
}

// limitsOut is Config.limits: the service's limits and the connections'.
func (s *ServerIface) limitsOut() srv.Limits {
	l := s.svc.Settings().Limits()
	return srv.Limits{Max_panes: int64(l.MaxPanes), Input_max_bytes: int64(l.InputMaxBytes),
		Input_bytes_per_second: int64(l.InputBytesPerSecond), Event_queue: int64(l.EventQueue),
		Capture_max_bytes: int64(l.CaptureMaxBytes), History_bytes: int64(s.svc.Settings().HistoryBytes()),
		History_total_bytes: l.HistoryTotalBytes, Request_budget_bytes: s.clients.RequestBudget,
		Request_timeout_ms: s.clients.IncompleteTimeout.Milliseconds(), Max_connections: int64(s.clients.MaxConnections)}
}

func (s *ServerIface) GetConfig(ctx context.Context, c srv.VarlinkCall) error {
	return c.ReplyGetConfig(ctx, s.configOut(s.svc.Runs().Config()))
}

func (s *ServerIface) SetConfig(ctx context.Context, c srv.VarlinkCall, maxActive, retainCount, retainMs, retainBytes, saveMs, historyRows *int64, removePanes *bool) error {
	change := map[string]int64{}
	if removePanes != nil {
		change[service.SettingRunRemovePanes] = 0
		if *removePanes {
			change[service.SettingRunRemovePanes] = 1
		}
	}
	for name, v := range map[string]*int64{service.SettingRunMaxActive: maxActive, service.SettingRunRetainCount: retainCount,
		service.SettingRunRetainMs: retainMs, service.SettingRunRetainBytes: retainBytes, service.SettingSaveInterval: saveMs,
		service.SettingHistoryRows: historyRows} {
		if v != nil {
			change[name] = *v
		}
	}
	if err := s.svc.Settings().Set(change); err != nil {
		return serverErrors.reply(ctx, c.Call, err)
	}
	return c.ReplySetConfig(ctx, s.configOut(s.svc.Runs().Config()))
}

var serverErrors = errorsOf(new(srv.VarlinkInterface))

// sharedHelpersOut is GetStatus's shared_helpers; nil when there are none.
func sharedHelpersOut(hs []service.SharedHelperSeen) *[]srv.SharedHelper {
	if len(hs) == 0 {
		return nil
	}
	out := make([]srv.SharedHelper, 0, len(hs))
	for _, h := range hs {
		out = append(out, srv.SharedHelper{Agent: h.Agent, Pid: int64(h.Pid), Pane: strOpt(h.Pane), Connections: h.Connections, Last_at: timestamp(h.LastAt), Fix: h.Fix})
	}
	return &out
}

func unattributedOut(us []service.UnattributedCaller) *[]srv.UnattributedCaller {
	out := make([]srv.UnattributedCaller, 0, len(us))
	for _, u := range us {
		out = append(out, srv.UnattributedCaller{Name: u.Name, Pid: int64(u.Pid), Connections: u.Connections, Last_at: timestamp(u.LastAt)})
	}
	return &out
}

func denialsOut(ds []service.Denials) *[]srv.DenialCount {
	out := make([]srv.DenialCount, 0, len(ds))
	for _, d := range ds {
		out = append(out, srv.DenialCount{Verb: d.Verb, Count: d.Count})
	}
	return &out
}
