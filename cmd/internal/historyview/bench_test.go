package historyview

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/varlink"
	vl "github.com/varlink/go/varlink"
)

// BenchmarkHistoryViewEnterAndTop: entering the history view of a pane
// that printed 10,000 numbered rows and jumping to its oldest row (g), each
// drawn: the calls a user's C-b [ then g cost, through the daemon's varlink
// layer on a unix socket in this process (docs/attach.md, "History view").
// p99-ms is the 99th percentile of the iterations.
func BenchmarkHistoryViewEnterAndTop(b *testing.B) {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := service.New(service.Config{Version: "bench", Address: "unix:/nonexistent", Environ: os.Environ(), Logger: quiet})
	stop, cancel := context.WithTimeout(ctx, time.Hour) // the panes' shutdown, after the benchmark
	b.Cleanup(func() { svc.Shutdown(stop); cancel() })
	vsvc, err := vl.NewService("t", "t", "0", "")
	if err != nil {
		b.Fatal(err)
	}
	srv := varlink.NewServer(vsvc, quiet)
	if err := vsvc.RegisterInterface(srv.Track(varlink.Guard(svc, varlink.NewMux(svc)))); err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(b.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(srv.Close)
	c, err := daemon.Dial(ctx, "unix:"+sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })

	w, err := svc.CreateWorkspace("bench", "")
	if err != nil {
		b.Fatal(err)
	}
	p, err := svc.SpawnPane(service.SpawnRequest{Workspace: w.ID, Argv: []string{"sh", "-c", "seq -f 'row-%g' 1 10000; exec sleep 1000"}})
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		capt, err := svc.CaptureRows(p.ID, service.CaptureRequest{})
		if err == nil && capt.End >= 10000 && slices.ContainsFunc(capt.Lines, func(l string) bool { return strings.HasPrefix(l, "row-10000") }) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the pane did not print its rows: %v", err)
		}
		time.Sleep(10 * time.Millisecond) // polling the pane's output, not synchronising the benchmark
	}
	src := Capture{Call: c.Call, Pane: p.ID}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		v, err := New(ctx, src, 80, 24)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Render(ctx, 0, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := v.Key(ctx, []byte("g")); err != nil {
			b.Fatal(err)
		}
		if _, err := v.Render(ctx, 0, 0); err != nil {
			b.Fatal(err)
		}
		if first, _, _ := v.row(ctx, v.Top()); v.Top() != 0 || strings.TrimRight(Plain(first), " ") != "row-1" {
			b.Fatalf("g did not show the oldest rows: top %d, %q", v.Top(), first)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100])/1e6, "p99-ms")
}
