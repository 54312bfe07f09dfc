package persist

import "github.com/signaltty/signaltty/snapshot"

// SaveAs decides how a pane's state is saved: one that holds a process
// (live) or that a shutdown save froze as live (frozen) is saved live with
// restore_state LIVE; a restored one never seen to exit (restored) is
// saved live with the restore_state it has; any other is saved exited
// (docs/persistence.md).
func SaveAs(live, frozen, restored bool) (saveLive, restoreLive bool) {
	switch {
	case frozen || live:
		return true, true
	case restored:
		return true, false
	}
	return false, false
}

// RestoreAs is the state a saved pane comes back in, with no process:
// snapshot.RestoreExited when it was saved exited, otherwise
// snapshot.RestoreResumable when its agent has a resume command
// (resumable), otherwise snapshot.RestoreRestored (it was running).
func RestoreAs(savedExited, resumable bool) string {
	switch {
	case savedExited:
		return snapshot.RestoreExited
	case resumable:
		return snapshot.RestoreResumable
	}
	return snapshot.RestoreRestored
}
