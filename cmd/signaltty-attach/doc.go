// Command signaltty-attach is signaltty's tab view (docs/attach.md, "Tab
// view"): every pane of a tab drawn in its split layout on this terminal,
// through a local terminal emulator per pane. Users start it as
// `signaltty attach --tab` (or by picking a tab in `signaltty` alone),
// which checks its flags and replaces itself with this program; it is a
// program of its own so that the emulator and screen libraries are not
// linked into every CLI call.
//
//	signaltty-attach [--address ADDRESS] [--json] [--read-only]
//	                 [--detach BYTE] [--prefix BYTE] [--history BYTE] [--mouse] [TAB]
//
// --detach, --prefix and --history are the keys as byte values (28 is C-\,
// 2 is C-b, 91 is [); TAB is a tab id (default: the active tab of the first workspace
// that has one). A failure is printed as the CLI prints it
// ("signaltty: MESSAGE (CODE)" on standard error, with --json the
// {"error":{...}} line on standard output) and the exit status is its
// error class's (docs/errors.md, "In the CLI").
package main
