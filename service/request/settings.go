package request

import (
	"fmt"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

// Bounds of the settings (docs/persistence.md, "Settings"): the runs'
// limits (docs/run-wait.md), a pane's history rows, and the intervals,
// each of which is 0 (off) or from its minimum to MaxInterval.
const (
	MinRunMaxActive   = 1
	MaxRunMaxActive   = 4096      // runs not yet completed
	MaxRunRetainCount = 65536     // completed run records kept
	MaxRunRetainMs    = 604800000 // 7 days
	MaxRunRetainBytes = 1 << 30   // output line bytes of all completed records

	// DefaultHistoryRows is a pane's history depth when neither its spawn
	// request nor the daemon's setting gives one (docs/rows.md,
	// "Scrollback bounds"); term.DefaultHistoryRows is the same number.
	DefaultHistoryRows = 10_000
	MaxHistoryRows     = 1_000_000

	// MaxInterval is the longest save, output save and emulator release
	// interval: 24 h.
	MaxInterval = 24 * time.Hour
	// MinSaveInterval is the shortest periodic save interval
	// (save_interval_ms, $SIGNALTTY_SAVE_INTERVAL).
	MinSaveInterval = time.Second
	// MinSaveOutputInterval is the shortest output save interval
	// ($SIGNALTTY_SAVE_OUTPUT_INTERVAL_MS; docs/persistence.md, "When").
	MinSaveOutputInterval = time.Second
	// MinEmulatorReleaseAfter is the shortest idle delay before a pane's
	// emulator is released ($SIGNALTTY_EMULATOR_RELEASE_MS;
	// docs/emulator-release.md).
	MinEmulatorReleaseAfter = 10 * time.Millisecond
)

// inInterval reports whether d is 0 (off) or min..MaxInterval.
func inInterval(d, min time.Duration) bool {
	return d == 0 || (d >= min && d <= MaxInterval)
}

// CheckSaveInterval accepts 0 (off) or MinSaveInterval..MaxInterval (1 s..24 h).
// Error: invalid_params.save_interval_ms (range).
func CheckSaveInterval(d time.Duration) *errcode.Error {
	if !inInterval(d, MinSaveInterval) {
		return errcode.Invalid("save_interval_ms", "range", "save_interval_ms must be 0 or %d..%d",
			MinSaveInterval.Milliseconds(), MaxInterval.Milliseconds())
	}
	return nil
}

// CheckSaveOutputInterval accepts 0 (off) or
// MinSaveOutputInterval..MaxInterval (1 s..24 h). Error:
// invalid_params.save_output_interval_ms (range).
func CheckSaveOutputInterval(d time.Duration) *errcode.Error {
	if !inInterval(d, MinSaveOutputInterval) {
		return errcode.Invalid("save_output_interval_ms", "range", "save_output_interval_ms must be 0 or %d..%d",
			MinSaveOutputInterval.Milliseconds(), MaxInterval.Milliseconds())
	}
	return nil
}

// CheckEmulatorReleaseAfter accepts 0 (never release) or
// MinEmulatorReleaseAfter..MaxInterval (10 ms..24 h). The error says the
// range; it has no code (the delay is set only from the environment).
func CheckEmulatorReleaseAfter(d time.Duration) error {
	if !inInterval(d, MinEmulatorReleaseAfter) {
		return fmt.Errorf("emulator release delay %v: 0 (off) or %v..%dh", d, MinEmulatorReleaseAfter, int(MaxInterval.Hours()))
	}
	return nil
}
