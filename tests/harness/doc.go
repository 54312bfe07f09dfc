// Package harness runs signaltty's end-to-end tests against the real
// programs: it builds signalttyd, signaltty, signaltty-mcp and
// signaltty-attach once per test binary, starts real daemons on private
// sockets, and drives them through the real CLI, the real varlinkctl and a
// raw varlink client.
//
// Use it from a TestMain:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
//
// A Daemon is one started signalttyd with its private directories, and
// its methods are the calls tests make of it (CLI, Dial, Subscribe, Spawn,
// Capture, Stop, Crash). Runs (dev.signaltty.Run) have their own helpers:
// RunSpec and Transport make requests through the CLI or varlinkctl and
// parse their Reply, the Check and Want functions check records and
// errors, World is what a failed request must leave unchanged, and
// Background runs a client in the background. Around the daemon it starts
// what tests need of the host, each private to the test: a session bus, a
// systemd --user manager, the real systemd-logind, sshd, tmux, and a fake
// model server for the coding agents. It also reads /proc (Proc) and
// waits for marker and test-seam files. The scripts next to the package
// fetch the outside programs it runs (README.md).
package harness
