package service

import (
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/request"
)

// History depth (docs/rows.md, "Scrollback bounds"): how many rows a pane's terminal
// keeps once they scrolled off the screen. Each pane has its own, fixed
// when it is spawned (SpawnRequest.HistoryRows, or the daemon's setting at
// that moment) and kept by relaunches; the byte budget (Config.HistoryBytes)
// bounds it too.
const (
	DefaultHistoryRows = request.DefaultHistoryRows
	MaxHistoryRows     = request.MaxHistoryRows
)

// CheckHistoryRows accepts 1..MaxHistoryRows. Errors: invalid_params.history_rows.
func CheckHistoryRows(n int) *Error {
	if n < 1 || n > MaxHistoryRows {
		return newError(errcode.InvalidParams("history_rows"), map[string]any{"param": "history_rows", "reason": "range", "min": 1, "max": MaxHistoryRows},
			"history_rows %d is outside 1..%d", n, MaxHistoryRows)
	}
	return nil
}

// HistoryRows is the daemon's setting: the history depth of panes spawned
// without one.
func (st *Settings) HistoryRows() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.historyRowsLocked()
}

func (st *Settings) historyRowsLocked() int {
	if st.historyRows > 0 {
		return st.historyRows
	}
	return DefaultHistoryRows
}

// paneHistoryRowsLocked is p's history depth: its own (saved and restored with
// it, docs/persistence.md, "What is saved"), or the daemon's setting for a
// pane that has none; mu is held.
func (st *Settings) paneHistoryRowsLocked(p *pane) int {
	if p.historyRows > 0 {
		return p.historyRows
	}
	return st.historyRowsLocked()
}

// SetHistoryRows changes the daemon's setting (see CheckHistoryRows); panes
// that exist keep theirs.
func (st *Settings) SetHistoryRows(n int) error {
	if err := CheckHistoryRows(n); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.historyRows = n
	return nil
}
