package varlink

import (
	"context"
	"encoding/json"

	"github.com/signaltty/signaltty/service"
	ev "github.com/signaltty/signaltty/varlink/devsignalttyevents"
)

// Events implements dev.signaltty.Events (devsignalttyevents/dev.signaltty.Events.varlink).
type Events struct{ svc *service.Service }

// NewEvents returns the dev.signaltty.Events interface for registration.
func NewEvents(svc *service.Service) *ev.VarlinkInterface { return ev.VarlinkNew(&Events{svc}) }

var eventsErrors = []string{"InvalidParams", "Unavailable", "Internal"}

func (e *Events) Subscribe(ctx context.Context, c ev.VarlinkCall, types, resources *[]string, snapshot *bool) error {
	var f service.Filter
	if types != nil {
		f.Types = *types
	}
	if resources != nil {
		f.Resources = *resources
	}
	sub := e.svc.Subscribe(f, snapshot != nil && *snapshot)
	defer sub.Close()
	var snap *json.RawMessage
	if sub.Snapshot != nil {
		b, _ := json.Marshal(sub.Snapshot)
		raw := json.RawMessage(b)
		snap = &raw
	}
	if !c.WantsMore() {
		return c.ReplySubscribe(ctx, true, e.svc.Source(), sub.Seq, snap, nil)
	}
	ctx2, stop := hangup(ctx, c.Call)
	defer stop()
	c.Continues = true
	if err := c.ReplySubscribe(ctx, true, e.svc.Source(), sub.Seq, snap, nil); err != nil {
		return err
	}
	for {
		select {
		case <-ctx2.Done():
			return nil // the client hung up or the daemon is stopping
		case evt, ok := <-sub.Events:
			if !ok {
				c.Continues = false
				if sub.Lagged() {
					return replyError(ctx, c.Call, "dev.signaltty.Events", eventsErrors,
						&service.Error{Code: "unavailable.lagged", Message: "subscriber fell too far behind",
							Data: map[string]any{"queue": service.SubscriberQueue}})
				}
				return replyError(ctx, c.Call, "dev.signaltty.Events", eventsErrors,
					&service.Error{Code: "unavailable.shutdown", Message: "the daemon is shutting down"})
			}
			data, _ := json.Marshal(evt.Data)
			out := &ev.Event{Source: evt.Source, Seq: evt.Seq, Type: string(evt.Type), Resource: evt.Resource,
				Ts: timestamp(evt.Time), Data: data}
			if err := c.ReplySubscribe(ctx, false, evt.Source, evt.Seq, nil, out); err != nil {
				return err
			}
		}
	}
}
