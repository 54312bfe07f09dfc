package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// logQueue makes writing a log line cheap for its caller: Write copies the
// line into a queue of at most logQueueLines lines, and one goroutine
// writes them to stderr. So a log call made while the service holds its
// state lock does no I/O there (the journal's stream socket or a pipe can
// block). When the queue is full a line is dropped and counted; the next
// line written says how many were lost.
type logQueue struct {
	lines   chan logItem
	mu      sync.Mutex
	dropped int
	journal bool // write the drop notice with a syslog priority prefix
}

// logItem is a line to write, or (flushed non-nil) a mark to close once
// every line queued before it is written.
type logItem struct {
	line    []byte
	dropped int // lines dropped just before this one
	flushed chan struct{}
}

const logQueueLines = 4096

func newLogQueue(journal bool) *logQueue {
	q := &logQueue{lines: make(chan logItem, logQueueLines), journal: journal}
	go q.drain()
	return q
}

// Write queues one log line (slog's handlers write each record in one
// call); it never blocks.
func (q *logQueue) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case q.lines <- logItem{line: append([]byte(nil), p...), dropped: q.dropped}:
		q.dropped = 0
	default:
		q.dropped++
	}
	return len(p), nil
}

func (q *logQueue) drain() {
	for it := range q.lines {
		if it.flushed != nil {
			close(it.flushed)
			continue
		}
		if n := it.dropped; n > 0 {
			prefix := ""
			if q.journal {
				prefix = "<4>"
			}
			fmt.Fprintf(os.Stderr, "%smsg=\"log lines dropped: the log queue was full\" dropped=%d\n", prefix, n)
		}
		os.Stderr.Write(it.line)
	}
}

// Flush waits until every queued line is written, at most timeout.
func (q *logQueue) Flush(timeout time.Duration) {
	done := make(chan struct{})
	deadline := time.After(timeout)
	select {
	case q.lines <- logItem{flushed: done}:
	case <-deadline:
		return
	}
	select {
	case <-done:
	case <-deadline:
	}
}
