package varlink

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
	vl "github.com/varlink/go/varlink"
)

// Benchmarks of verbs over many panes through the varlink layer: a Server
// with the Mux interface serves one end of a socket pair, the benchmark
// writes raw calls to the other end and reads each reply to its NUL (no
// decoding on the client side). service/bench_test.go measures the service
// part alone.

// benchServer returns a connection to a Server over a Service holding n
// live idle panes in workspaces of 100.
func benchServer(b *testing.B, n int) (*service.Service, net.Conn, *bufio.Reader) {
	b.Helper()
	svc := service.New(service.Config{Version: "bench", Address: "unix:/nonexistent", Environ: os.Environ()})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		svc.Shutdown(ctx)
	})
	var ws string
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			w, err := svc.CreateWorkspace("", "")
			if err != nil {
				b.Fatal(err)
			}
			ws = w.ID
		}
		if _, err := svc.SpawnPane(service.SpawnRequest{Workspace: ws, Argv: []string{"sleep", "1000"}}); err != nil {
			b.Fatal(err)
		}
	}
	vsvc, err := vl.NewService("t", "t", "0", "")
	if err != nil {
		b.Fatal(err)
	}
	s := NewServer(vsvc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := vsvc.RegisterInterface(s.Track(Guard(svc, NewMux(svc)))); err != nil {
		b.Fatal(err)
	}
	c, _ := servePair(b, s)
	return svc, c, bufio.NewReaderSize(c, 1<<20)
}

func benchCall(b *testing.B, c net.Conn, rd *bufio.Reader, method string, params any) int {
	msg, err := json.Marshal(map[string]any{"method": method, "parameters": params})
	if err != nil {
		b.Fatal(err)
	}
	msg = append(msg, 0)
	if _, err := c.Write(msg); err != nil {
		b.Fatal(err)
	}
	reply, err := rd.ReadSlice(0)
	for err == bufio.ErrBufferFull {
		var more []byte
		more, err = rd.ReadSlice(0)
		reply = append(append([]byte(nil), reply...), more...)
	}
	if err != nil {
		b.Fatal(err)
	}
	if len(reply) < 40 && string(reply[:8]) == `{"error"` {
		b.Fatal(string(reply))
	}
	return len(reply)
}

// BenchmarkWireListPanes1000: Mux.ListPanes of all 1000 live idle panes,
// call to the reply's last byte.
func BenchmarkWireListPanes1000(b *testing.B) {
	_, c, rd := benchServer(b, 1000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = benchCall(b, c, rd, "dev.signaltty.Mux.ListPanes", map[string]any{})
	}
	b.ReportMetric(float64(n), "reply-bytes")
}

// BenchmarkWireGetWorkspace100: Mux.GetWorkspace of a workspace of 100
// panes among 1000.
func BenchmarkWireGetWorkspace100(b *testing.B) {
	svc, c, rd := benchServer(b, 1000)
	ws := svc.ListWorkspaces()[0].ID
	b.ReportAllocs()
	for b.Loop() {
		benchCall(b, c, rd, "dev.signaltty.Mux.GetWorkspace", map[string]any{"workspace": ws})
	}
}
