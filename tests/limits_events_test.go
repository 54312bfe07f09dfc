package tests

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// A subscriber that stops reading is ended once SIGNALTTY_EVENT_QUEUE
// events wait for it: the events queued before are still sent, then the
// stream fails unavailable.lagged with data.queue and data.last_seq.
func TestSubscriberThatStopsReadingEndsLagged(t *testing.T) {
	t.Parallel()
	// Every title change is an event (no coalescing), so titles flood the queue.
	d := harness.Start(t, harness.Options{Env: []string{"SIGNALTTY_EVENT_QUEUE=8", "SIGNALTTY_TITLE_INTERVAL_MS=0"}})
	w := d.CreateWorkspace(t, "limits-events")
	c := d.DialUnix(t)
	defer c.Close()
	c.Write([]byte(`{"method":"dev.signaltty.Events.Subscribe","parameters":{"types":["pane.title"]},"more":true}` + "\x00"))
	rd := bufio.NewReader(c)
	if r, msg, err := readRaw(c, rd, 30*time.Second); err != nil || r.Error != "" {
		t.Fatalf("subscribe: %q %v", msg, err)
	}
	// 10,000 title changes: far more than the socket buffers and the queue hold.
	p := d.Spawn(t, ws(w), "sh", "-c", `i=0; while [ $i -lt 10000 ]; do printf '\033]0;t%d\007' $i; i=$((i+1)); done; echo done; exec sleep 100`)
	d.WaitLine(t, p.ID, "done")
	var last int64
	for n := 0; ; n++ {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		msg, err := rd.ReadBytes(0)
		if err != nil {
			t.Fatalf("after %d events: %v, want the stream to end unavailable.lagged", n, err)
		}
		var r struct {
			Error      string          `json:"error"`
			Parameters json.RawMessage `json:"parameters"`
			Continues  bool            `json:"continues"`
		}
		if err := json.Unmarshal(msg[:len(msg)-1], &r); err != nil {
			t.Fatal(err)
		}
		if r.Error == "" {
			var ev struct {
				Event struct {
					Seq int64 `json:"seq"`
				} `json:"event"`
			}
			json.Unmarshal(r.Parameters, &ev)
			last = ev.Event.Seq
			continue
		}
		var e harness.ErrorReply
		json.Unmarshal(r.Parameters, &e)
		if r.Error != "dev.signaltty.Events.Unavailable" || e.Code != "unavailable.lagged" || e.Data["queue"] != float64(8) {
			t.Fatalf("the stream ended with %s %+v, want unavailable.lagged with queue 8", r.Error, e)
		}
		if ls, _ := e.Data["last_seq"].(float64); int64(ls) != last || !strings.Contains(e.Message, "8") {
			t.Errorf("last_seq %v, want %d (the last event sent); message %q", e.Data["last_seq"], last, e.Message)
		}
		if n >= 10000 {
			t.Errorf("all %d events were sent before the end", n)
		}
		return
	}
}
