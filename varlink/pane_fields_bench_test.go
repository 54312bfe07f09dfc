package varlink

import (
	"testing"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// overviewFields is the selection the benchmarks of Mux.ListPaneFields
// make: what an overview of many panes shows.
var overviewFields = []string{"id", "workspace", "tab", "title", "state", "lifecycle", "attention"}

// BenchmarkWireListPaneFields1000: over one connection to a Server with
// 1000 live idle panes, call to the reply's last byte, side by side: all,
// Mux.ListPanes; fields7, Mux.ListPaneFields of overviewFields; page100,
// the same with limit 100.
func BenchmarkWireListPaneFields1000(b *testing.B) {
	_, c, rd := benchServer(b, 1000)
	for _, bm := range []struct {
		name, method string
		params       map[string]any
	}{
		{"all", "dev.signaltty.Mux.ListPanes", map[string]any{}},
		{"fields7", "dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields}},
		{"page100", "dev.signaltty.Mux.ListPaneFields", map[string]any{"fields": overviewFields, "limit": 100}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = benchCall(b, c, rd, bm.method, bm.params)
			}
			b.ReportMetric(float64(n), "reply-bytes")
		})
	}
}

// BenchmarkListPaneFieldsReply1000: the reply message over 1000 live idle
// panes from kept records, side by side: all, ListPanes'; fields7,
// ListPaneFields' of overviewFields.
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
	all := func(string) bool { return true }
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pr.listPanes(svc, "", "", all); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fields7", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pr.listPaneFields(svc, "", "", set, nil, all); err != nil {
				b.Fatal(err)
			}
		}
	})
}
