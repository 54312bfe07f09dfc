package persist

import (
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

// SaveDebounce is the least time between two debounced saves.
const SaveDebounce = 2 * time.Second

// DefaultSaveOutputInterval is the daemon's output save interval unless
// configured otherwise (docs/persistence.md, "When").
const DefaultSaveOutputInterval = 30 * time.Second

// MaxInterval is the longest save or output save interval.
const MaxInterval = 24 * time.Hour

// CheckSaveInterval accepts 0 (off) or 1 s..24 h. Error:
// invalid_params.save_interval_ms.
func CheckSaveInterval(d time.Duration) *errcode.Error {
	if d != 0 && (d < time.Second || d > MaxInterval) {
		return errcode.Invalid("save_interval_ms", "range", "save_interval_ms must be 0 or 1000..86400000")
	}
	return nil
}

// CheckSaveOutputInterval accepts 0 (off) or 1 s..24 h. Error:
// invalid_params.save_output_interval_ms.
func CheckSaveOutputInterval(d time.Duration) *errcode.Error {
	if d != 0 && (d < time.Second || d > MaxInterval) {
		return errcode.Invalid("save_output_interval_ms", "range", "save_output_interval_ms must be 0 or 1000..86400000")
	}
	return nil
}
