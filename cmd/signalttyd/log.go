package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
)

// newLogger logs to stderr: with syslog priority prefixes ("<6>…", see
// sd-daemon(3)) and no timestamps when stderr is the journal
// ($JOURNAL_STREAM names it), as plain slog text otherwise.
// $SIGNALTTY_LOG_LEVEL=debug enables debug messages.
// Lines go through a logQueue (logqueue.go): Flush it before exiting.
func newLogger() (*slog.Logger, *logQueue) {
	level := slog.LevelInfo
	if os.Getenv("SIGNALTTY_LOG_LEVEL") == "debug" {
		level = slog.LevelDebug
	}
	if stderrIsJournal() {
		q := newLogQueue(true)
		return slog.New(&journalHandler{level: level, mu: &sync.Mutex{}, out: q}), q
	}
	q := newLogQueue(false)
	return slog.New(slog.NewTextHandler(q, &slog.HandlerOptions{Level: level})), q
}

// stderrIsJournal compares $JOURNAL_STREAM ("dev:inode") with stderr.
func stderrIsJournal() bool {
	js := os.Getenv("JOURNAL_STREAM")
	if js == "" {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(2, &st); err != nil {
		return false
	}
	return js == fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}

// journalHandler writes "<priority>message key=value…" lines.
type journalHandler struct {
	level slog.Level
	attrs []slog.Attr
	group string
	mu    *sync.Mutex
	out   io.Writer
}

func (h *journalHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *journalHandler) Handle(_ context.Context, r slog.Record) error {
	prio := 6 // info
	switch {
	case r.Level >= slog.LevelError:
		prio = 3
	case r.Level >= slog.LevelWarn:
		prio = 4
	case r.Level < slog.LevelInfo:
		prio = 7
	}
	var buf bytes.Buffer
	th := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		}})
	var hh slog.Handler = th.WithAttrs(h.attrs)
	if h.group != "" {
		hh = hh.WithGroup(h.group)
	}
	if err := hh.Handle(context.Background(), r); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.out.Write(append([]byte(fmt.Sprintf("<%d>", prio)), buf.Bytes()...))
	return err
}

func (h *journalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &c
}

func (h *journalHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.group = name
	return &c
}
