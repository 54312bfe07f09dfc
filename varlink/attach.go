package varlink

import (
	"context"
	"encoding/base64"
	"errors"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// errOneReply stops an AttachPane called without "more" after its first reply.
var errOneReply = errors.New("one reply")

// AttachPane streams a pane's screen (docs/attach.md): one reply per frame
// while the call has "more", the first frame only without it.
func (m *Mux) AttachPane(ctx context.Context, c mux.VarlinkCall, id string, termName *string) error {
	more := c.WantsMore()
	ctx2, stop := hangup(ctx, c.Call)
	defer stop()
	sent := false
	err := m.svc.AttachPane(ctx2, id, str(termName), func(f service.AttachFrame) error {
		var pane *mux.Pane
		if f.Pane != nil {
			p := paneOut(*f.Pane)
			pane = &p
		}
		c.Continues = more && f.End == ""
		sent = true
		if err := c.ReplyAttachPane(ctx, base64.StdEncoding.EncodeToString(f.Data), int64(f.Cols), int64(f.Rows), pane, strOpt(f.End)); err != nil {
			return err
		}
		if !more {
			return errOneReply
		}
		return nil
	})
	switch {
	case sent || errors.Is(err, context.Canceled):
		// Replied (a failed write closes the connection), or the client
		// hung up or the daemon is stopping.
		return nil
	case err != nil:
		return m.fail(ctx, c, err)
	}
	return nil
}
