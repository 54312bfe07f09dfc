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
	pool.reserve(false) // the pool and its filler exist
	pool.making.Lock()  // nothing can be made in turn now, by the filler either
	pool.mu.Lock()
	kept := pool.free
	pool.free = nil
	pool.mu.Unlock()
	wrote := make(chan struct{})
	go func() {
		tm.Write([]byte("hello\r\n"))
		close(wrote)
	}()
	for deadline := time.Now().Add(10 * time.Second); pool.serialWaits.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			pool.making.Unlock()
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
	pool.making.Unlock()
	<-wrote
	<-done
	pool.mu.Lock()
	pool.free = append(pool.free, kept...)
	pool.mu.Unlock()
	c, err := tm.Capture(CaptureRequest{})
	if cols, _ := tm.Size(); err != nil || len(c.Lines) == 0 || !strings.HasPrefix(c.Lines[0], "hello ") || cols != 100 {
		t.Errorf("after the wait: %v, cols %d, lines %q", err, cols, c.Lines)
	}
}
