package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/signaltty/signaltty/journal"
	"github.com/signaltty/signaltty/service"
)

// startJournal opens the event journal in <state dir>/events and publishes
// svc's events through it (docs/events.md, "Journal"). A journal that
// cannot be opened leaves the daemon serving without one: numbering starts
// from 0, nothing can be replayed, and status and doctor say why.
// $SIGNALTTY_JOURNAL_SEGMENT_BYTES and $SIGNALTTY_JOURNAL_SEGMENTS change
// the rotation (defaults 8 MiB and 3 closed segments).
func startJournal(log *slog.Logger, svc *service.Service, stateDir string) {
	opt := journal.Options{}
	if n, err := strconv.ParseInt(os.Getenv("SIGNALTTY_JOURNAL_SEGMENT_BYTES"), 10, 64); err == nil {
		opt.SegmentBytes = n
	}
	if n, err := strconv.Atoi(os.Getenv("SIGNALTTY_JOURNAL_SEGMENTS")); err == nil {
		opt.Segments = n
	}
	dir := filepath.Join(stateDir, "events")
	j, err := journal.Open(dir, opt)
	if err != nil {
		log.Error("the event journal cannot be opened; events are not journaled until it can be", "err", err)
		svc.Publisher().JournalUnavailable(err)
		go retryJournal(log, svc, dir, opt)
		return
	}
	for _, p := range j.Problems() {
		log.Warn("event journal: "+p, "dir", dir)
	}
	svc.Publisher().StartJournal(j)
	retained, broken, _ := j.Coverage()
	log.Info("event journal", "dir", dir, "base", j.Base(), "retained_after", retained, "broken_through", broken)
}

// retryJournal opens the journal again after 1 s, doubling to every 5 s,
// until it opens (the full disk has space again) and svc adopts it
// (docs/events.md, "A full disk").
func retryJournal(log *slog.Logger, svc *service.Service, dir string, opt journal.Options) {
	for wait := time.Second; ; wait = min(2*wait, 5*time.Second) {
		time.Sleep(wait)
		j, err := journal.Open(dir, opt)
		if err != nil {
			svc.Publisher().JournalUnavailable(err)
			continue
		}
		for _, p := range j.Problems() {
			log.Warn("event journal: "+p, "dir", dir)
		}
		svc.Publisher().AdoptJournal(j)
		return
	}
}
