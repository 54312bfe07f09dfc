// Command fakesystemd1 serves just enough org.freedesktop.systemd1 on a
// private bus for the real systemd-logind to run its shutdown-inhibitor
// protocol: power targets report LoadState "loaded", and StartUnit is
// refused, so logind emits PrepareForShutdown(true), waits for delay
// inhibitors, then (StartUnit failing) PrepareForShutdown(false). Nothing
// is ever shut down. It prints READY once it serves and a STARTUNIT line
// for each StartUnit call. It is a module of its own, built by the
// harness.
package main
