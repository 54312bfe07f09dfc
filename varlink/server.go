package varlink

import (
	"context"

	"github.com/signaltty/signaltty/service"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// ServerIface implements dev.signaltty.Server (devsignalttyserver/dev.signaltty.Server.varlink).
type ServerIface struct {
	svc *service.Service
	// shutdown asks the daemon to stop; called after the reply was sent.
	shutdown func()
}

// NewServerIface returns the dev.signaltty.Server interface for registration.
// shutdown is called once Server.Shutdown has replied.
func NewServerIface(svc *service.Service, shutdown func()) *srv.VarlinkInterface {
	return srv.VarlinkNew(&ServerIface{svc: svc, shutdown: shutdown})
}

func (s *ServerIface) GetStatus(ctx context.Context, c srv.VarlinkCall) error {
	st := s.svc.Status()
	return c.ReplyGetStatus(ctx, srv.Status{Version: st.Version, Source: st.Source, Address: st.Address,
		Pid: int64(st.Pid), Socket_activated: st.SocketActivated, Started_at: timestamp(st.StartedAt),
		Uptime_ms: st.Uptime.Milliseconds(), Workspaces: int64(st.Workspaces), Tabs: int64(st.Tabs),
		Panes: int64(st.Panes), Live_panes: int64(st.LivePanes), Seq: st.Seq})
}

func (s *ServerIface) Shutdown(ctx context.Context, c srv.VarlinkCall) error {
	err := c.ReplyShutdown(ctx)
	s.shutdown()
	return err
}

func configOut(c service.RunConfig) srv.Config {
	return srv.Config{Run: srv.RunConfig{Max_active: int64(c.MaxActive), Retain_count: int64(c.RetainCount),
		Retain_ms: c.RetainMs, Retain_bytes: c.RetainBytes}}
}

func (s *ServerIface) GetConfig(ctx context.Context, c srv.VarlinkCall) error {
	return c.ReplyGetConfig(ctx, configOut(s.svc.RunConfig()))
}

func (s *ServerIface) SetConfig(ctx context.Context, c srv.VarlinkCall, maxActive, retainCount, retainMs, retainBytes *int64) error {
	cfg, err := s.svc.SetRunConfig(intp(maxActive), intp(retainCount), retainMs, retainBytes)
	if err != nil {
		return replyError(ctx, c.Call, "dev.signaltty.Server", serverErrors, err)
	}
	return c.ReplySetConfig(ctx, configOut(cfg))
}

var serverErrors = []string{"InvalidParams", "Unavailable", "Internal"}
