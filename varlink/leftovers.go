package varlink

import (
	"context"
	"time"

	"github.com/signaltty/signaltty/service"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// Server.GetStatus previous_daemons and Server.StopLeftovers
// (docs/termination.md, "When the daemon dies").

// previousDaemonsOut is nil (the field left out) when there were none.
func previousDaemonsOut(es []service.PreviousDaemon) *[]srv.PreviousDaemon {
	if len(es) == 0 {
		return nil
	}
	out := make([]srv.PreviousDaemon, 0, len(es))
	for _, e := range es {
		out = append(out, srv.PreviousDaemon{Pid: int64(e.Pid), Started_at: timeOpt(e.Started), Last_seen_at: timeOpt(e.LastSeen),
			State: e.State, Leftovers_known: e.Mark != 0, Leftovers: leftoversOut(e.Leftovers)})
	}
	return &out
}

func leftoversOut(ps []service.LeftoverProcess) []srv.LeftoverProcess {
	out := make([]srv.LeftoverProcess, 0, len(ps))
	for _, p := range ps {
		out = append(out, srv.LeftoverProcess{Pid: int64(p.Pid), Name: p.Name})
	}
	return out
}

// timeOpt is t as a timestamp, nil when zero.
func timeOpt(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return strOpt(timestamp(t))
}

func (s *ServerIface) StopLeftovers(ctx context.Context, c srv.VarlinkCall) error {
	stopped, remaining := s.svc.Leftovers().Stop(ctx)
	return c.ReplyStopLeftovers(ctx, leftoversOut(stopped), leftoversOut(remaining))
}
