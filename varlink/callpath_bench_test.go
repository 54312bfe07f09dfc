package varlink

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
)

// Benchmarks of the call path of one request through the varlink layer
// (read loop, parameter check, Guard, generated bindings, handler, reply)
// over a socket pair in this process: the per-call cost the daemon adds to
// the service's own. The Run ones compare Run.Start + Run.Wait of `true`
// through the wire with the same calls made on the service directly, in
// alternating sub-benchmarks of one run.

// callServer serves the Run and Mux interfaces of svc on one end of a
// socket pair and returns the other end.
func callServer(b *testing.B, svc *service.Service) (net.Conn, *bufio.Reader) {
	b.Helper()
	vsvc, err := vl.NewService("t", "t", "0", "")
	if err != nil {
		b.Fatal(err)
	}
	s := NewServer(vsvc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, d := range []Dispatcher{NewRun(svc), NewMux(svc)} {
		if err := vsvc.RegisterInterface(s.Track(Guard(svc, d))); err != nil {
			b.Fatal(err)
		}
	}
	c, _ := servePair(b, s)
	return c, bufio.NewReaderSize(c, 1<<16)
}

func callService(b *testing.B) *service.Service {
	b.Helper()
	svc := service.New(service.Config{Version: "bench", Address: "unix:/nonexistent", Environ: os.Environ(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		svc.Shutdown(ctx)
	})
	return svc
}

// wireCall sends one call and decodes its reply's parameters into out.
func wireCall(b *testing.B, c net.Conn, rd *bufio.Reader, msg []byte, out any) {
	if _, err := c.Write(msg); err != nil {
		b.Fatal(err)
	}
	reply, err := rd.ReadSlice(0)
	if err != nil {
		b.Fatal(err)
	}
	var r struct {
		Error      string          `json:"error"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(reply[:len(reply)-1], &r); err != nil || r.Error != "" {
		b.Fatalf("%s: %v", reply, err)
	}
	if out != nil {
		if err := json.Unmarshal(r.Parameters, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRunGet: Run.Get of a completed run (no output), call to
// reply: the cost of one bare call through the layer.
func BenchmarkCallRunGet(b *testing.B) {
	svc := callService(b)
	w, err := svc.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	st, err := svc.Runs().Start(context.Background(), service.RunRequest{Key: "k", Workspace: w.ID, Argv: []string{"true"}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Runs().Wait(context.Background(), st.Run, -1, false); err != nil {
		b.Fatal(err)
	}
	c, rd := callServer(b, svc)
	msg, _ := json.Marshal(map[string]any{"method": "dev.signaltty.Run.Get", "parameters": map[string]any{"run": st.Run, "output": false}})
	msg = append(msg, 0)
	b.ReportAllocs()
	for b.Loop() {
		wireCall(b, c, rd, msg, nil)
	}
}

// BenchmarkCallRunStartWait: Run.Start then Run.Wait (with "more", as the
// CLI and the compare bench call it) of `true`, through the wire and on
// the service directly; the pane is removed after each, untimed.
func BenchmarkCallRunStartWait(b *testing.B) {
	svc := callService(b)
	w, err := svc.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	c, rd := callServer(b, svc)
	ctx := context.Background()
	i := 0
	remove := func(b *testing.B, pane string) {
		b.StopTimer()
		if err := svc.RemovePane(ctx, pane, true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.Run("wire", func(b *testing.B) {
		for b.Loop() {
			i++
			start, _ := json.Marshal(map[string]any{"method": "dev.signaltty.Run.Start",
				"parameters": map[string]any{"key": fmt.Sprint("w", i), "workspace": w.ID, "argv": []string{"true"}}})
			var st struct{ Run, Pane string }
			wireCall(b, c, rd, append(start, 0), &st)
			wait, _ := json.Marshal(map[string]any{"method": "dev.signaltty.Run.Wait", "more": true,
				"parameters": map[string]any{"run": st.Run, "output": true}})
			var rec struct{ Record struct{ Status *int } }
			wireCall(b, c, rd, append(wait, 0), &rec)
			if rec.Record.Status == nil || *rec.Record.Status != 0 {
				b.Fatal("run failed")
			}
			remove(b, st.Pane)
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			i++
			st, err := svc.Runs().Start(ctx, service.RunRequest{Key: fmt.Sprint("d", i), Workspace: w.ID, Argv: []string{"true"}})
			if err != nil {
				b.Fatal(err)
			}
			rec, err := svc.Runs().Wait(ctx, st.Run, -1, true)
			if err != nil || rec.Status == nil || *rec.Status != 0 {
				b.Fatal(rec, err)
			}
			remove(b, st.Pane)
		}
	})
}
