package service

import (
	"time"

	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/term"
)

// Idle emulator release (docs/emulator-release.md): every pane's terminal
// shares the service's parker, which releases the emulator of a pane whose
// output was idle for the delay and keeps what rebuilds it on the next
// output, resize, capture or attach.

// DefaultEmulatorReleaseAfter is the delay unless configured otherwise.
const DefaultEmulatorReleaseAfter = term.DefaultReleaseAfter

// SetEmulatorReleaseAfter sets how long a pane's output stays idle before
// its emulator is released (0: never). Errors: see
// request.CheckEmulatorReleaseAfter.
func (st *Settings) SetEmulatorReleaseAfter(d time.Duration) error {
	if err := request.CheckEmulatorReleaseAfter(d); err != nil {
		return err
	}
	st.parker.SetAfter(d)
	return nil
}

// EmulatorReleaseAfter is the delay in force (0: never).
func (st *Settings) EmulatorReleaseAfter() time.Duration { return st.parker.After() }

// EmulatorReleaseStats counts the emulators released and rebuilt so far.
func (st *Settings) EmulatorReleaseStats() term.ParkerStats { return st.parker.Stats() }
