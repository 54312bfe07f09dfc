package pty

import (
	"context"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// cpuHogs starts n busy processes that the test ends with it.
func cpuHogs(t testing.TB, n int) {
	t.Helper()
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
}

// Leaders that leave nobody behind are never taken for held-open PTYs, even
// when many panes start and end at once beside busy CPUs.
func TestConcurrentTrueNeverHeldOpenUnderLoad(t *testing.T) {
	total := 2000
	if testing.Short() {
		total = 300
	}
	cpuHogs(t, 4)
	var held, done atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4*runtime.NumCPU()+8)
	for range total {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p, err := Start(Config{Argv: []string{"true"}, Dir: "/", Env: testEnv, Cols: 80, Rows: 24})
			if err != nil {
				t.Error(err)
				return
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			select {
			case <-p.Done():
			case <-ctx.Done():
				t.Error("a pane of true did not end")
				return
			}
			st, _ := p.Status()
			if st.HeldOpen {
				held.Add(1)
			}
			done.Add(1)
		}()
	}
	wg.Wait()
	if n := held.Load(); n != 0 {
		t.Errorf("%d of %d panes of true reported as held open", n, done.Load())
	}
}
