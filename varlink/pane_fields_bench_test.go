package varlink

import (
	"testing"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// overviewFields is the selection the benchmarks of Mux.ListPaneFields
// make: what an overview of many panes shows.
var overviewFields = []string{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"}

// BenchmarkWireListPaneFields1000: Mux.ListPaneFields of all 1000 live idle
// panes with overviewFields, call to the reply's last byte (compare
// BenchmarkWireListPanes1000).
func BenchmarkWireListPaneFields1000(b *testing.B) {
	_, c, rd := benchServer(b, 1000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = benchCall(b, c, rd, "dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields})
	}
	b.ReportMetric(float64(n), "reply-bytes")
}

// BenchmarkListPaneFieldsReply1000: the ListPaneFields reply message over
// 1000 live idle panes with overviewFields, from the kept records.
func BenchmarkListPaneFieldsReply1000(b *testing.B) {
	svc, _, _ := benchServer(b, 1000)
	sel := make([]mux.PaneField, len(overviewFields))
	for i, f := range overviewFields {
		sel[i] = mux.PaneField(f)
	}
	set, err := parsePaneFields(sel)
	if err != nil {
		b.Fatal(err)
	}
	pr := newPaneRecords()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pr.listPaneFields(svc, "", "", set, nil, func(string) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
