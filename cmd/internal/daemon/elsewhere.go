package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/signaltty/signaltty/varlink/address"
	vl "github.com/varlink/go/varlink"
)

// warnw is where a client says that it starts a second daemon (standard
// error; a variable for tests).
var warnw io.Writer = os.Stderr

// userDaemonElsewhere describes the user's daemon when one answers at the
// user's address (address.UserAddress) and that is not addr: its address
// and state directory, as its Server.GetStatus gives them. "" when there
// is none, or it does not answer within 2 s.
func userDaemonElsewhere(ctx context.Context, addr string) string {
	user := address.UserAddress()
	if user == "" || user == addr {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := vl.NewConnection(ctx, user)
	if err != nil {
		return ""
	}
	defer conn.Close()
	var st struct {
		Status struct {
			Address     string `json:"address"`
			Persistence struct {
				StateDir string `json:"state_dir"`
			} `json:"persistence"`
		} `json:"status"`
	}
	if err := conn.Call(ctx, "dev.signaltty.Server.GetStatus", nil, &st); err != nil {
		return user
	}
	return fmt.Sprintf("%s (state directory %s)", user, st.Status.Persistence.StateDir)
}

// warnSecondDaemon says, on standard error, that the daemon about to be
// started at addr is not the user's daemon, which answers elsewhere
// (docs/systemd.md, "A second daemon"): its panes and workspaces are not
// that one's.
func warnSecondDaemon(addr, user string) {
	state := "?"
	if dir, err := stateDir(); err == nil {
		state = dir
	}
	fmt.Fprintf(warnw, "signaltty: warning: no daemon at %s: starting a second one there (state directory %s), apart from the user's daemon at %s; "+
		"its panes and workspaces are not this one's. To reach the user's daemon, set SIGNALTTY_ADDRESS to that address (or unset the XDG_RUNTIME_DIR "+
		"or SIGNALTTY_ADDRESS that points here); SIGNALTTY_NO_AUTOSTART=1 starts none.\n", addr, state, user)
}
