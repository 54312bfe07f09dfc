// Command replay writes a recorded terminal stream (tests/bench/streams:
// KIND.data.gz and KIND.timing.gz, `script --log-timing`'s classic format)
// to its standard output at the recorded pace or -speed times faster, for
// running inside a pane of the server under test. Its terminal is put in
// raw mode (no echo of what the server answers, no output processing), and
// what the server sends it is read and discarded.
//
// With -skip F it first writes the first fraction F of the stream at once
// (so that panes replaying one stream are at different places), then, when
// -ready is given, creates that file; the paced replay starts there. It
// loops over the stream until -for has passed since then, writes its
// statistics to -stats (JSON: bytes written, how far behind the recorded
// schedule it was at the end and at most, in seconds of wall time) and
// then sleeps until killed, so that the pane stays as it was.
//
// Usage: replay [-speed N] [-skip F] [-for D] [-ready FILE] [-stats FILE] DIR/KIND
package main
