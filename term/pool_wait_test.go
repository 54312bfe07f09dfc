package term

import (
	"strings"
	"testing"
	"time"
)

// A terminal's first output that waits for the pool to make its emulator
// (one is made at a time) does so before taking the terminal's lock: a
// resize and a capture of that terminal meanwhile are answered at once.
func TestFirstOutputWaitingForAnEmulatorDoesNotHoldTheTerminal(t *testing.T) {
	tm := NewTerminal(Config{Cols: 80, Rows: 24})
	defer tm.Close()
	shared.pool.reserve(false) // the pool and its filler exist
	shared.pool.making.Lock()  // nothing can be made in turn now, by the filler either
	shared.pool.mu.Lock()
	kept := shared.pool.free
	shared.pool.free = nil
	shared.pool.mu.Unlock()
	wrote := make(chan struct{})
	go func() {
		tm.Write([]byte("hello\r\n"))
		close(wrote)
	}()
	for deadline := time.Now().Add(10 * time.Second); shared.pool.serialWaits.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			shared.pool.making.Unlock()
			t.Fatal("the first output never waited for an emulator")
		}
	}
	done := make(chan struct{})
	go func() {
		tm.Resize(100, 30)
		if _, err := tm.Capture(CaptureRequest{}); err != nil {
			t.Error(err)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("resize and capture waited for the pool with the first output")
	}
	shared.pool.making.Unlock()
	<-wrote
	<-done
	shared.pool.mu.Lock()
	shared.pool.free = append(shared.pool.free, kept...)
	shared.pool.mu.Unlock()
	c, err := tm.Capture(CaptureRequest{})
	if cols, _ := tm.Size(); err != nil || len(c.Lines) == 0 || !strings.HasPrefix(c.Lines[0], "hello ") || cols != 100 {
		t.Errorf("after the wait: %v, cols %d, lines %q", err, cols, c.Lines)
	}
}
