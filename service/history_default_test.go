package service

import (
	"testing"

	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/term"
)

// The terminal's own fallback for a history depth of 0 and the daemon's
// default are one number: a pane spawned without a depth keeps the same
// rows whichever of the two decides.
func TestDefaultHistoryRowsIsTheTerminalsFallback(t *testing.T) {
	if term.DefaultHistoryRows != request.DefaultHistoryRows {
		t.Fatalf("term.DefaultHistoryRows = %d, request.DefaultHistoryRows = %d", term.DefaultHistoryRows, request.DefaultHistoryRows)
	}
	if got := newTestService(t).Settings().HistoryRows(); got != request.DefaultHistoryRows {
		t.Fatalf("a daemon without the setting keeps %d history rows, want %d", got, request.DefaultHistoryRows)
	}
}
