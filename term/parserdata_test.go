package term

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// The emulator's string-payload buffer is cut to oscDataBytes (x/vt would
// give each emulator 4 MiB), and a title within it still arrives whole.
func TestEmulatorParserDataIsSmall(t *testing.T) {
	if !shrinkParserData(vt.NewEmulator(10, 2)) {
		t.Fatal("x/vt's emulator has no *ansi.Parser field named parser any more: shrinkParserData needs another way")
	}
	var log eventLog
	term := NewTerminal(Config{Cols: 20, Rows: 5, HistoryRows: 100, HistoryBytes: 1 << 20, OnEvent: log.add})
	defer term.Close()
	long := strings.Repeat("t", 1000)
	term.Write([]byte("\x1b]2;" + long + "\x07"))
	got := ""
	for _, e := range log.take() {
		if e.Kind == EventTitle {
			got = e.Text
		}
	}
	if !strings.HasPrefix(long, got) || got == "" {
		t.Fatalf("title %q", got)
	}
}

func BenchmarkStartEmulator(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		term := NewTerminal(Config{Cols: 80, Rows: 24, HistoryRows: 100, HistoryBytes: 1 << 20})
		term.Write([]byte("x"))
		term.Close()
	}
}
