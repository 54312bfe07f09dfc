package term

import (
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Sizes of FuzzTerminalPipeline's executions.
const (
	fuzzMaxInput  = 1024 // bytes of an input used
	fuzzSeedBytes = 384  // bytes of each seed stream
	fuzzMaxCols   = 24
	fuzzMaxRows   = 8
)

// FuzzTerminalPipeline: arbitrary PTY byte streams, cut into arbitrary
// writes, into a Terminal with and without the fast path: no panic, the
// history stays within its bounds, every captured row (history and screen)
// is exactly Cols cells wide with no control characters, and both paths
// agree on every stored row, screen cell and the cursor.
// Longer runs: go test -run '^$' -fuzz FuzzTerminalPipeline -fuzztime 10m ./term/
//
// Each execution is kept cheap, so that the fuzzer gets through many: the
// cost of emulation is per byte and per scrolled row times the screen's
// size, so inputs are cut at fuzzMaxInput bytes and screens are at most
// fuzzMaxCols×fuzzMaxRows (wrapping, scrolling, margins and wide
// characters at the edge happen there as on any size); the seeds are short
// pieces of the differential tests' streams.
func FuzzTerminalPipeline(f *testing.F) {
	for name, data := range streams() {
		f.Add(data[:min(len(data), fuzzSeedBytes)], uint8(len(name)), uint8(7), uint16(97))
	}
	f.Add([]byte("\x1b[?1049h\x1b[2J\x1b[5;5Hx\x1b[?1049l日本\u0301\r\n"), uint8(2), uint8(1), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, c, r uint8, chunk uint16) {
		// A stuck input crashes the worker, so the fuzzer keeps it.
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("input of %d bytes stuck for 20 s", len(data))) })
		t.Cleanup(func() { watchdog.Stop() }) // after the terminals' Close (cleanups run last first)
		data = data[:min(len(data), fuzzMaxInput)]
		cols, rows := 1+int(c)%fuzzMaxCols, 1+int(r)%fuzzMaxRows
		n := 1 + int(chunk)%fuzzMaxInput
		const histRows, histBytes = 200, 1 << 16
		slow := newTerm(t, cols, rows, histRows, histBytes)
		slow.fp.on = false
		fast := newTerm(t, cols, rows, histRows, histBytes)
		writeChunks(slow, data, n)
		writeChunks(fast, data, n)
		if len(data) > 0 { // no output: no emulator started yet (lazy), nothing to compare
			compareTerminals(t, slow, fast)
		}
		zero := int64(0)
		cp, err := fast.Capture(CaptureRequest{Start: &zero})
		if err != nil {
			// Row 0 may have been dropped: capture from the oldest row kept.
			cp0, _ := fast.Capture(CaptureRequest{})
			cp, err = fast.Capture(CaptureRequest{Start: &cp0.Oldest})
			if err != nil {
				t.Fatalf("capture from the oldest row: %v", err)
			}
		}
		if cp.End-cp.Oldest > histRows+int64(rows) {
			t.Fatalf("%d rows kept with a history of %d rows and %d screen rows", cp.End-cp.Oldest, histRows, rows)
		}
		if cp.Cols != cols {
			t.Fatalf("capture cols %d, want %d", cp.Cols, cols)
		}
		for i, l := range cp.Lines {
			if w := ansi.StringWidth(l); w != cols {
				t.Fatalf("row %d is %d cells wide, want %d: %q", i, w, cols, l)
			}
			if !utf8.ValidString(l) {
				t.Fatalf("row %d is not UTF-8: %q", i, l)
			}
			for _, ch := range l {
				if ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0) {
					t.Fatalf("row %d has control character %U: %q", i, ch, l)
				}
			}
		}
	})
}
