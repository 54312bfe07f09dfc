package varlink

import (
	"context"
	"errors"
	"time"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
	runv "github.com/signaltty/signaltty/varlink/devsignalttyrun"
)

// MaxReply is the largest reply a call may get, in bytes of JSON; a Run
// record over it fails unsupported.result_size and is never truncated.
const MaxReply = 1 << 20

// waitTick is how often a Wait called with "more" reports the current record.
const waitTick = 10 * time.Second

// Run implements dev.signaltty.Run (devsignalttyrun/dev.signaltty.Run.varlink).
type Run struct{ svc *service.Service }

// NewRun returns the dev.signaltty.Run interface for registration.
func NewRun(svc *service.Service) *runv.VarlinkInterface { return runv.VarlinkNew(&Run{svc}) }

var runErrors = errorsOf(new(runv.VarlinkInterface))

func (r *Run) fail(ctx context.Context, c runv.VarlinkCall, err error) error {
	return runErrors.reply(ctx, c.Call, err)
}

func (r *Run) Start(ctx context.Context, c runv.VarlinkCall, key string, ws, pane, axis *string, argv *[]string, shell, cwd *string,
	env *map[string]string, envUnset *[]string, name *string,
	cols, rows, deadlineMs, outputRows, outputBytes *int64, source *string, grants *[]runv.Grant) error {
	req := service.RunRequest{Key: key, Workspace: str(ws), Pane: str(pane), Axis: str(axis), Shell: shell, Name: name, Cwd: str(cwd),
		Cols: intp(cols), Rows: intp(rows), DeadlineMs: deadlineMs, OutputRows: intp(outputRows),
		OutputBytes: intp(outputBytes), Source: str(source), Principal: principalOf(ctx).ID,
		Grants: grantsIn(grants, func(g runv.Grant) service.Grant { return service.Grant{Right: g.Right, Scope: g.Scope} })}
	if err := r.svc.Access().CheckDelegation(principalOf(ctx), "dev.signaltty.Run.Start", req.Grants); err != nil {
		return r.fail(ctx, c, err)
	}
	if env != nil {
		req.Env = *env
	}
	if envUnset != nil {
		req.EnvUnset = *envUnset
	}
	if argv != nil {
		req.Argv = *argv
		if req.Argv == nil {
			req.Argv = []string{}
		}
	}
	ctx2, stop := hangup(ctx, c.Call)
	defer stop() // after the reply: the watch's wake-up is not on the caller's path
	res, err := r.svc.Runs().Start(ctx2, req)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	return c.ReplyStart(ctx, res.Run, res.Source, res.Key, res.Pane, res.Tab, res.Workspace, res.Principal, int64(res.Pid), res.Reused)
}

func (r *Run) Wait(ctx context.Context, c runv.VarlinkCall, id string, timeoutMs *int64, output *bool, source *string, trim *bool) error {
	if err := r.svc.Runs().CheckSource(str(source)); err != nil {
		return r.fail(ctx, c, err)
	}
	timeout := time.Duration(-1)
	if timeoutMs != nil {
		if err := request.CheckWaitMs(*timeoutMs); err != nil {
			return r.fail(ctx, c, err)
		}
		timeout = time.Duration(*timeoutMs) * time.Millisecond
	}
	withOutput := output == nil || *output
	ctx2, stop := hangup(ctx, c.Call)
	defer stop()
	if !c.WantsMore() {
		rec, err := r.svc.Runs().Wait(ctx2, id, timeout, withOutput)
		if err != nil {
			return r.fail(ctx, c, err)
		}
		return r.reply(ctx, c, rec, false, isTrue(trim))
	}
	var end time.Time
	if timeout >= 0 {
		end = time.Now().Add(timeout)
	}
	for {
		slice := waitTick
		if timeout >= 0 {
			slice = min(slice, max(time.Until(end), 0))
		}
		rec, err := r.svc.Runs().Wait(ctx2, id, slice, withOutput)
		var se *service.Error
		switch {
		case err == nil:
			return r.reply(ctx, c, rec, false, isTrue(trim))
		case errors.As(err, &se) && se.Code == errcode.TimeoutWait && (timeout < 0 || time.Now().Before(end)):
			cur, gerr := r.svc.Runs().Get(id, false)
			if gerr != nil {
				return r.fail(ctx, c, gerr)
			}
			if err := r.reply(ctx, c, cur, true, false); err != nil {
				return err
			}
		default:
			return r.fail(ctx, c, err)
		}
	}
}

func (r *Run) Get(ctx context.Context, c runv.VarlinkCall, id string, output *bool, source *string, trim *bool) error {
	if err := r.svc.Runs().CheckSource(str(source)); err != nil {
		return r.fail(ctx, c, err)
	}
	rec, err := r.svc.Runs().Get(id, output == nil || *output)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	return r.reply(ctx, c, rec, false, isTrue(trim))
}

func (r *Run) List(ctx context.Context, c runv.VarlinkCall, pane, key, after *string, limit *int64) error {
	n := 0
	if limit != nil {
		n = int(*limit)
		if n == 0 {
			n = -1 // explicit 0 is out of range
		}
	}
	recs, next, err := r.svc.Runs().ListFor(principalOf(ctx), str(pane), str(key), str(after), n)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	out := make([]runv.Record, 0, len(recs))
	for _, rec := range recs { // filtered by read (Runs.ListFor), never denied
		out = append(out, recordOut(rec))
	}
	params := map[string]any{"source": r.svc.Source(), "runs": out}
	if next != "" {
		params["next"] = next
	}
	msg, err := encodeReply(params, false)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	if len(msg) > MaxReply {
		return r.fail(ctx, c, tooLarge(len(msg)))
	}
	return writeReply(ctx, c.Call, msg)
}

func (r *Run) Cancel(ctx context.Context, c runv.VarlinkCall, id string, signal *string, graceMs *int64, source *string) error {
	if err := r.svc.Runs().CheckSource(str(source)); err != nil {
		return r.fail(ctx, c, err)
	}
	grace, err := graceOf(graceMs)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	ctx2, stop := hangup(ctx, c.Call)
	rec, err := r.svc.Runs().Cancel(ctx2, id, str(signal), grace)
	stop()
	if err != nil {
		return r.fail(ctx, c, err)
	}
	return r.reply(ctx, c, rec, false, false)
}

// reply sends a record ({record}: the reply of Wait, Get and Cancel), or
// unsupported.result_size when the message would exceed MaxReply.
// With trim, the output's lines lose their trailing spaces.
func (r *Run) reply(ctx context.Context, c runv.VarlinkCall, rec service.Run, continues, trim bool) error {
	out := recordOut(rec)
	if trim && out.Output != nil {
		out.Output.Lines = trimLines(out.Output.Lines)
	}
	msg, err := encodeReply(map[string]any{"record": out}, continues)
	if err != nil {
		return r.fail(ctx, c, err)
	}
	if len(msg) > MaxReply {
		c.Continues = false
		return r.fail(ctx, c, tooLarge(len(msg)))
	}
	return writeReply(ctx, c.Call, msg)
}

func tooLarge(size int) *service.Error {
	return &service.Error{Code: errcode.UnsupportedResultSize, Message: "the reply would exceed 1 MiB; ask without output and read rows with CaptureRows",
		Data: map[string]any{"bytes": size, "max": MaxReply}}
}

func recordOut(r service.Run) runv.Record {
	out := runv.Record{Run: r.ID, Source: r.Source, Key: r.Key, Pane: r.Pane, Tab: r.Tab, Workspace: r.Workspace,
		Principal: r.Principal, Pid: int64(r.Pid), Shell: r.Shell, State: r.State, Outcome: strOpt(r.Outcome),
		Signal: strOpt(r.Signal), Cause: strOpt(r.Cause), Started_at: timestamp(r.StartedAt)}
	if r.ExitCode != nil {
		v := int64(*r.ExitCode)
		out.Exit_code = &v
	}
	if r.Status != nil {
		v := int64(*r.Status)
		out.Status = &v
		out.Completed_at = strOpt(timestamp(r.CompletedAt))
		d := r.Duration.Milliseconds()
		out.Duration_ms = &d
	}
	if o := r.Output; o != nil {
		lines := o.Lines
		if lines == nil {
			lines = []string{}
		}
		out.Output = &runv.Output{Screen: o.Screen, Epoch: o.Epoch, Offset: o.Offset, Cols: int64(o.Cols), Rows: int64(o.Rows),
			Oldest: o.Oldest, Start: o.Start, End: o.End, Complete: o.Complete, Lines: lines}
	}
	return out
}
