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

// WaitOutput is Mux.WaitOutput: waiting on what a pane prints (docs/rows.md, "Output waits").
func (m *Mux) WaitOutput(ctx context.Context, c mux.VarlinkCall, pane string, after *mux.OutputBaseline, match *string, quietMs, timeoutMs *int64) error {
	r, err := m.waitOutput(ctx, c, pane, nil, after, match, quietMs, timeoutMs)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyWaitOutput(ctx, r.Outcome, r.MatchedRow, r.Epoch, r.First, r.Lines, r.Omitted, waitStatusOut(r.Status), outputBaselineOut(r.Baseline))
}

// SendWait is Mux.SendWait: SendInput, then WaitOutput from the screen before the write.
func (m *Mux) SendWait(ctx context.Context, c mux.VarlinkCall, pane string, text, data, match *string, quietMs, timeoutMs *int64) error {
	in, err := inputBytes(text, data)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	r, err := m.waitOutput(ctx, c, pane, in, nil, match, quietMs, timeoutMs)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplySendWait(ctx, int64(r.Written), r.Outcome, r.MatchedRow, r.Epoch, r.First, r.Lines, r.Omitted, waitStatusOut(r.Status), outputBaselineOut(r.Baseline))
}

func (m *Mux) waitOutput(ctx context.Context, c mux.VarlinkCall, pane string, input []byte, after *mux.OutputBaseline, match *string, quietMs, timeoutMs *int64) (service.OutputWaitResult, error) {
	w := service.OutputWait{Match: str(match), QuietMs: quietMs, Input: input, Timeout: -1}
	if timeoutMs != nil {
		if *timeoutMs < 0 {
			return service.OutputWaitResult{}, service.Invalid("timeout_ms", "range", "timeout_ms must be 0 or more")
		}
		w.Timeout = time.Duration(*timeoutMs) * time.Millisecond
	}
	if after != nil {
		w.After = &service.OutputBaseline{Epoch: after.Epoch, Row: after.Row, Digest: after.Digest}
	}
	ctx2, stop := hangup(ctx, c.Call)
	defer stop()
	return m.svc.WaitOutput(ctx2, pane, w)
}

func outputBaselineOut(b service.OutputBaseline) mux.OutputBaseline {
	return mux.OutputBaseline{Epoch: b.Epoch, Row: b.Row, Digest: b.Digest}
}
