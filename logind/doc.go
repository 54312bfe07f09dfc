// Package logind saves signaltty's state when the host shuts down
// (docs/persistence.md, "Host shutdown").
//
// A Monitor connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS or the
// default system bus socket) and watches org.freedesktop.login1. It holds a
// delay inhibitor for "shutdown" (Inhibit with mode "delay"), which makes
// logind wait, up to its InhibitDelayMaxUSec, before the machine goes down.
// When logind announces the shutdown (the signal PrepareForShutdown(true), or
// the property PreparingForShutdown already true), the monitor calls
// Config.Save, releases the inhibitor by closing its descriptor, whether the
// save worked or not, and calls Config.Stop. PrepareForShutdown(false)
// during the save means the shutdown was cancelled: Config.Thaw is called,
// the daemon keeps running and keeps (or takes again) its inhibitor.
//
// Order of operations on every connection: subscribe to PrepareForShutdown
// and to NameOwnerChanged of org.freedesktop.login1 first, then Inhibit, then
// read PreparingForShutdown, so that no announcement can fall between the
// three. logind refuses new delay inhibitors while a shutdown is under way;
// the monitor then still reads PreparingForShutdown and saves without one.
//
// A missing bus, a refused Inhibit, a dropped bus connection or logind
// leaving the bus make the monitor retry with exponential backoff (1 s
// doubling to 60 s; back to 1 s after an Inhibit succeeds). When logind's
// name gets a new owner (a logind restart), the inhibitor is taken again at
// once from the new owner, and the old descriptor is closed after.
// PrepareForShutdown is only believed from the current owner of
// org.freedesktop.login1, never from another connection of the bus.
//
// The inhibitor descriptor is close-on-exec, so no program the daemon starts
// inherits it, and it is closed when Run returns; the kernel closes it on
// any other exit, SIGKILL included. Sleep (PrepareForSleep) is not handled.
//
// The package depends on nothing of signaltty: the daemon passes functions.
package logind
