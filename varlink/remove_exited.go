package varlink

import (
	"context"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// RemoveExitedPanes removes a workspace's exited panes (Mux.RemoveExitedPanes).
func (m *Mux) RemoveExitedPanes(ctx context.Context, c mux.VarlinkCall, ws string) error {
	ids, err := m.svc.RemoveExitedPanes(ws)
	if err != nil {
		return m.fail(ctx, c, err)
	}
	return c.ReplyRemoveExitedPanes(ctx, ids)
}
