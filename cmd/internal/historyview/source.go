package historyview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
)

// Caller makes one call to the daemon and returns its reply's parameters
// (daemon.Client.Call).
type Caller func(ctx context.Context, method string, params any) (json.RawMessage, error)

// Capture is the Source of a pane's rows through Mux.CaptureRows
// (docs/rows.md): the screen, or a range clamped to the rows kept, with
// escapes, in the given epoch (conflict.epoch is ErrEpoch).
type Capture struct {
	Call Caller
	Pane string
}

func (c Capture) capture(ctx context.Context, params map[string]any) (Page, error) {
	params["pane"] = c.Pane
	params["escapes"] = true
	raw, err := c.Call(ctx, "dev.signaltty.Mux.CaptureRows", params)
	var de *daemon.Error
	if errors.As(err, &de) && de.Code == "conflict.epoch" {
		return Page{}, fmt.Errorf("%w: %s", ErrEpoch, de.Message)
	}
	if err != nil {
		return Page{}, err
	}
	var r struct {
		Epoch, Oldest, End, First, Rows int64
		Lines                           []string
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Page{}, &daemon.Error{Code: "internal", Message: "cannot decode reply: " + err.Error(), Data: map[string]any{}}
	}
	return Page{First: r.First, Oldest: r.Oldest, End: r.End, Epoch: r.Epoch, Rows: r.Rows, Lines: r.Lines}, nil
}

// Screen returns the pane's screen rows and its numbers.
func (c Capture) Screen(ctx context.Context) (Page, error) {
	return c.capture(ctx, map[string]any{})
}

// Range returns rows [start, end) of epoch, clamped to the rows kept.
func (c Capture) Range(ctx context.Context, start, end, epoch int64) (Page, error) {
	return c.capture(ctx, map[string]any{"start": start, "end": end, "epoch": epoch, "clamp": true})
}
