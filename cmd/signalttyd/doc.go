// Command signalttyd is the signaltty daemon: it owns workspaces, tabs and
// panes (PTYs with their processes) and serves them over varlink on
// $XDG_RUNTIME_DIR/signaltty/dev.signaltty, or on a socket-activated
// listener (FileDescriptorName=varlink).
//
// The program wires the daemon together and keeps its place on the host;
// the model and its verbs are package service's and the interfaces
// package varlink's. It takes the state directory's lock (one daemon per
// state directory; a socket-activated daemon that cannot take it answers
// every connection with an error until it can), listens or takes the
// activated listener and removes only the socket file it made, reads the
// settings file and the environment's limits into the service, sets up one
// cgroup per pane when its cgroup is delegated, opens the event journal,
// and talks to systemd and the desktop: sd_notify(3) and the watchdog,
// exit when idle, the session bus (/dev/signaltty1 and desktop notifications) and
// the logind shutdown monitor. It logs to stderr, with syslog priorities
// when stderr is the journal. docs/systemd.md describes these.
package main
