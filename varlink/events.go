package varlink

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/errcode"
	ev "github.com/signaltty/signaltty/varlink/devsignalttyevents"
)

// Events implements dev.signaltty.Events (devsignalttyevents/dev.signaltty.Events.varlink).
type Events struct{ svc *service.Service }

// NewEvents returns the dev.signaltty.Events interface for registration.
func NewEvents(svc *service.Service) *ev.VarlinkInterface { return ev.VarlinkNew(&Events{svc}) }

var eventsErrors = errorsOf(new(ev.VarlinkInterface))

func (e *Events) fail(ctx context.Context, c ev.VarlinkCall, err error) error {
	return eventsErrors.reply(ctx, c.Call, err)
}

func (e *Events) Subscribe(ctx context.Context, c ev.VarlinkCall, types, resources *[]string, snapshot *bool, afterSeq *int64) error {
	var f service.Filter
	if types != nil {
		f.Types = *types
	}
	if resources != nil {
		f.Resources = *resources
	}
	withSnapshot := snapshot != nil && *snapshot
	var sub *service.Subscription
	if afterSeq != nil {
		if withSnapshot {
			return e.fail(ctx, c, service.Invalid("after_seq", "exclusive", "after_seq and snapshot exclude each other"))
		}
		var err error
		if sub, err = e.svc.Publisher().SubscribeAfter(f, *afterSeq); err != nil {
			return e.fail(ctx, c, err)
		}
	} else {
		sub = e.svc.Subscribe(f, withSnapshot)
	}
	defer sub.Close()
	var snap *json.RawMessage
	if sub.Snapshot != nil && e.svc.Access().Allowed(principalOf(ctx), service.RightRead, "*") {
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
	last := sub.Seq // the last seq sent, for a client to resume from
	if len(sub.Replay) > 0 {
		last = min(last, sub.Replay[0].Seq-1)
	}
	caller := principalOf(ctx)
	send := func(evt service.Event) error {
		if !e.svc.Access().Allowed(caller, service.RightRead, eventResource(evt.Resource)) {
			return nil // each event is filtered by read on its resource
		}
		data, _ := json.Marshal(evt.Data)
		out := &ev.Event{Source: evt.Source, Seq: evt.Seq, Type: string(evt.Type), Resource: evt.Resource,
			Ts: timestamp(evt.Time), Data: data}
		last = evt.Seq
		return c.ReplySubscribe(ctx, false, e.svc.Source(), evt.Seq, nil, out)
	}
	for _, evt := range sub.Replay {
		if err := send(evt); err != nil {
			return err
		}
	}
	last = max(last, sub.Seq)
	for {
		select {
		case <-ctx2.Done():
			return nil // the client hung up or the daemon is stopping
		case evt, ok := <-sub.Events:
			if !ok {
				c.Continues = false
				if err := sub.Ended(); err != nil {
					data := map[string]any{"last_seq": last}
					for k, v := range err.Data {
						data[k] = v
					}
					return e.fail(ctx, c, &service.Error{Code: err.Code, Message: err.Message, Data: data})
				}
				end := errcode.Shutdown()
				end.Data = map[string]any{"last_seq": last}
				return e.fail(ctx, c, end)
			}
			if err := send(evt); err != nil {
				return err
			}
		}
	}
}

// eventResource names an event's resource for authorization: ids carry
// their kind ("pane_…", "tab_…", "ws_…", runs "r<n>"); the daemon's own
// events are "*".
func eventResource(id string) string {
	switch {
	case strings.HasPrefix(id, "pane_"):
		return "pane:" + id
	case strings.HasPrefix(id, "tab_"):
		return "tab:" + id
	case strings.HasPrefix(id, "ws_"):
		return "workspace:" + id
	case len(id) > 1 && id[0] == 'r' && strings.Trim(id[1:], "0123456789") == "":
		return "run:" + id
	}
	return "*"
}
