package pty

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is an Output that keeps every byte written to it and counts
// Writes that overlapped another; a Write of more than a few KiB sleeps a
// little, so that later chunks queue behind it.
type recorder struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	busy    atomic.Int32
	overlap atomic.Int32
	closed  chan struct{}
}

func (r *recorder) Write(p []byte) {
	if r.busy.Add(1) != 1 {
		r.overlap.Add(1)
	}
	if len(p) > 8<<10 {
		time.Sleep(2 * time.Millisecond)
	}
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	r.busy.Add(-1)
}
func (r *recorder) Resize(cols, rows int) {}
func (r *recorder) Close()                { close(r.closed) }

// Output arriving as small pieces (written by the reader itself) and as
// bursts (queued for the emulator) reaches the Output whole, in order, one
// Write at a time.
func TestSmallAndQueuedOutputKeepTheirOrder(t *testing.T) {
	const script = `i=0; while [ $i -lt 400 ]; do i=$((i+1)); printf 'small-%d\n' $i;` +
		` if [ $((i % 40)) -eq 0 ]; then head -c 150000 /dev/zero | tr '\0' x; printf '\n'; fi; done`
	var want strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&want, "small-%d\r\n", i)
		if i%40 == 0 {
			want.WriteString(strings.Repeat("x", 150000) + "\r\n")
		}
	}
	// The emulator waits between taking queued chunks and writing them:
	// small chunks read meanwhile must stay behind them.
	emulateHold = func() { time.Sleep(time.Millisecond) }
	t.Cleanup(func() { emulateHold = nil })
	r := &recorder{closed: make(chan struct{})}
	p, err := Start(Config{Argv: []string{"sh", "-c", script}, Dir: "/", Env: testEnv, Cols: 80, Rows: 24}, r)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 60*time.Second)
	p.Close()
	<-r.closed
	got := r.buf.String()
	if got != want.String() {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
			i++
		}
		t.Fatalf("output differs at byte %d of %d (want %d): got %q…", i, len(got), want.Len(), got[i:min(len(got), i+40)])
	}
	if n := r.overlap.Load(); n != 0 {
		t.Fatalf("%d Writes overlapped another", n)
	}
	if off := p.offset.Load(); off != int64(len(got)) {
		t.Fatalf("offset %d, want %d", off, len(got))
	}
}
