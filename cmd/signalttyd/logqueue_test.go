package main

import (
	"os"
	"testing"
	"time"
)

// TestLogQueueWritesInOrderAndCountsDrops: lines reach stderr in order
// after Flush, a full queue drops lines without blocking the caller, and
// the next line written says how many were dropped.
func TestLogQueueWritesInOrderAndCountsDrops(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()

	q := &logQueue{lines: make(chan logItem, 2)} // not draining yet
	for _, l := range []string{"a\n", "b\n", "c\n", "d\n"} {
		done := make(chan struct{})
		go func() { q.Write([]byte(l)); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Write blocked on a full queue")
		}
	}
	go q.drain()
	q.Flush(10 * time.Second) // a and b written: room for e
	q.Write([]byte("e\n"))
	q.Flush(10 * time.Second)
	w.Close()
	b := make([]byte, 4096)
	n, _ := r.Read(b)
	got := string(b[:n])
	if want := "a\nb\nmsg=\"log lines dropped: the log queue was full\" dropped=2\ne\n"; got != want {
		t.Fatalf("stderr got %q, want %q", got, want)
	}
}
