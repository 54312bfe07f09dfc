// Package attachio is the terminal side of an attach (docs/attach.md),
// shared by the CLI's pane attach and the tab view program
// signaltty-attach: the user's terminal in raw mode on its own alternate
// screen, the replies of Mux.AttachPane, and the line that says how an
// attach ended.
package attachio
