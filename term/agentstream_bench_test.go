package term

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// agentStream reads a recorded agent stream (tests/bench/streams/README.md)
// as the writes the agent made: script's header line dropped, one slice per
// line of the timing file.
func agentStream(tb testing.TB, kind string) [][]byte {
	tb.Helper()
	base := filepath.Join("..", "tests", "bench", "streams", kind)
	read := func(path string) []byte {
		f, err := os.Open(path)
		if err != nil {
			tb.Skipf("no recorded stream: %v", err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(z)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	data, timing := read(base+".data.gz"), read(base+".timing.gz")
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	var writes [][]byte
	sc := bufio.NewScanner(bytes.NewReader(timing))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			tb.Fatalf("%s.timing.gz: bad line %q", base, sc.Text())
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n > len(data) {
			break
		}
		writes = append(writes, data[:n])
		data = data[n:]
	}
	return writes
}

// BenchmarkTerminalAgentStreams feeds each recorded agent stream to a
// 120×40 terminal (the size it was recorded at), one Write per write the
// agent made, as a pane's reader does at the recorded pace, looping over
// the stream as tests/bench/replay does (the first pass, which makes the
// emulator, is not timed): the emulation
// cost of the agent workloads of tests/bench/compare.sh.
func BenchmarkTerminalAgentStreams(b *testing.B) {
	for _, kind := range []string{"claude", "codex", "opencode", "pi"} {
		b.Run(kind, func(b *testing.B) {
			writes := agentStream(b, kind)
			total := 0
			for _, w := range writes {
				total += len(w)
			}
			b.SetBytes(int64(total))
			term := NewTerminal(Config{Cols: 120, Rows: 40, HistoryRows: DefaultHistoryRows, HistoryBytes: DefaultHistoryBytes})
			defer term.Close()
			for _, w := range writes { // the emulator made, its screens filled
				term.Write(w)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, w := range writes {
					term.Write(w)
				}
			}
		})
	}
}
