package varlink

import (
	"context"
	"time"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// Wait is Mux.Wait: waiting on a pane's agent state (docs/agents.md, "Waiting").
func (m *Mux) Wait(ctx context.Context, c mux.VarlinkCall, pane string, until []string, after *mux.WaitBaseline, timeoutMs *int64) error {
	timeout := time.Duration(-1)
	if timeoutMs != nil {
		if *timeoutMs < 0 {
			return m.fail(ctx, c, service.Invalid("timeout_ms", "range", "timeout_ms must be 0 or more"))
		}
		timeout = time.Duration(*timeoutMs) * time.Millisecond
	}
	var base *service.WaitBaseline
	if after != nil {
		base = &service.WaitBaseline{Pane: after.Pane, Source: after.Source, Seq: after.Seq, Instance: after.Instance, Session: str(after.Session)}
	}
	ctx2, stop := hangup(ctx, c.Call)
	r, err := m.svc.WaitPane(ctx2, pane, until, base, timeout)
	stop()
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyWait(ctx, r.Outcome, r.TransitionSeq, r.Lifecycle, r.Attention, baselineOut(r.Baseline))
}

func baselineOut(b service.WaitBaseline) mux.WaitBaseline {
	return mux.WaitBaseline{Pane: b.Pane, Source: b.Source, Seq: b.Seq, Instance: b.Instance, Session: strOpt(b.Session)}
}
