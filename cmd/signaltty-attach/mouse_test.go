package main

import (
	"image"
	"testing"

	"github.com/charmbracelet/x/ansi"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

func TestParseReportReadsSGRMouseReports(t *testing.T) {
	for in, want := range map[string]report{
		"\x1b[<0;10;5M":   {btn: 0, x: 9, y: 4, press: true},
		"\x1b[<64;1;1Mxy": {btn: 64, x: 0, y: 0, press: true},
		"\x1b[<32;3;4M":   {btn: 32, x: 2, y: 3, press: true},
		"\x1b[<0;3;4m":    {btn: 0, x: 2, y: 3},
	} {
		got, n := parseReport([]byte(in))
		if got != want || n == 0 || in[n-1] != 'M' && in[n-1] != 'm' {
			t.Errorf("parseReport(%q) = %+v, %d; want %+v", in, got, n, want)
		}
	}
	if _, n := parseReport([]byte("\x1b[<0;10")); n != 0 {
		t.Errorf("a report cut short was taken (%d bytes)", n)
	}
}

func ptr[T any](v T) *T { return &v }

// twoByTwo is a | (b / c) on 80×24.
func twoByTwo() *mux.Layout {
	leaf := func(id string) *mux.Layout { return &mux.Layout{Kind: "pane", Pane: ptr(id)} }
	return &mux.Layout{Kind: "split", Axis: ptr("cols"), Ratio: ptr(0.5), First: leaf("a"),
		Second: &mux.Layout{Kind: "split", Axis: ptr("rows"), Ratio: ptr(0.5), First: leaf("b"), Second: leaf("c")}}
}

func TestBordersAreFoundWhereTheSplitsDivideTheView(t *testing.T) {
	ss := splits(twoByTwo(), image.Rect(0, 0, 80, 24))
	if len(ss) != 2 || ss[0].at != 40 || ss[0].before != "b" || ss[1].at != 12 || ss[1].before != "c" || !ss[1].rows {
		t.Fatalf("splits %+v", ss)
	}
	for _, c := range []struct {
		x, y int
		want string // the split's pane, "" for none
	}{
		{39, 5, "b"}, {40, 20, "b"}, {60, 11, "c"}, {60, 12, "c"}, {20, 12, ""}, {41, 5, ""}, {60, 13, ""},
	} {
		got := ""
		if s := onBorder(ss, c.x, c.y); s != nil {
			got = s.before
		}
		if got != c.want {
			t.Errorf("onBorder(%d, %d) = %q, want %q", c.x, c.y, got, c.want)
		}
	}
}

func TestDraggingABorderSetsTheRatioThatPutsItThere(t *testing.T) {
	ss := splits(twoByTwo(), image.Rect(0, 0, 80, 24))
	if r := ss[0].dragTo(20, 0); r != 0.25 {
		t.Errorf("dragged to column 20 of 80: ratio %v, want 0.25", r)
	}
	if r := ss[0].dragTo(0, 0); r != 3.0/80 && r != 0.05 {
		t.Errorf("dragged to the edge: ratio %v", r)
	}
	if r := ss[0].dragTo(79, 0); r != 77.0/80 && r != 0.95 {
		t.Errorf("dragged to the other edge: ratio %v", r)
	}
	if r := ss[1].dragTo(60, 6); r != 0.25 {
		t.Errorf("dragged to row 6 of 24: ratio %v, want 0.25", r)
	}
}

func TestReportsGoToAPaneAsItAskedForThem(t *testing.T) {
	press, motion, release, wheel := report{btn: 0, press: true}, report{btn: 32, press: true}, report{btn: 0}, report{btn: 64, press: true}
	pane := func(modes ...ansi.DECMode) *tabPane {
		tp := &tabPane{modes: map[ansi.DECMode]bool{}}
		for _, m := range modes {
			tp.modes[m] = true
		}
		return tp
	}
	sgr := pane(ansi.ModeMouseNormal, ansi.ModeMouseExtSgr)
	if got := string(sgr.encode(press, 4, 2)); got != "\x1b[<0;5;3M" {
		t.Errorf("SGR press: %q", got)
	}
	if got := string(sgr.encode(release, 4, 2)); got != "\x1b[<0;5;3m" {
		t.Errorf("SGR release: %q", got)
	}
	if got := sgr.encode(motion, 4, 2); got != nil {
		t.Errorf("normal tracking got a motion: %q", got)
	}
	if got := string(pane(ansi.ModeMouseButtonEvent, ansi.ModeMouseExtSgr).encode(motion, 4, 2)); got != "\x1b[<32;5;3M" {
		t.Errorf("button events: motion %q", got)
	}
	if got := string(pane(ansi.ModeMouseNormal).encode(press, 4, 2)); got != "\x1b[M %#" {
		t.Errorf("original encoding: press %q", got)
	}
	if got := string(pane(ansi.ModeMouseNormal).encode(release, 4, 2)); got != "\x1b[M#%#" {
		t.Errorf("original encoding: release %q", got)
	}
	if got := pane(ansi.ModeMouseX10).encode(wheel, 4, 2); got != nil {
		t.Errorf("X10 got the wheel: %q", got)
	}
	if got := pane().encode(press, 4, 2); got != nil || pane().wantsMouse() {
		t.Errorf("a pane without mouse modes got %q", got)
	}
}

func TestTheTabShownIsTheActiveOneOrTheLastWithPanesNeverARunsTab(t *testing.T) {
	l := twoByTwo()
	tabs := []mux.Tab{{Id: "t1", Layout: l}, {Id: "t2", Layout: l}, {Id: "run", Layout: l, Run: ptr("r1")}, {Id: "empty"}}
	for _, c := range []struct {
		active *string
		ref    string
		want   string
	}{
		{ptr("t1"), "", "t1"}, {ptr("empty"), "", "t2"}, {ptr("run"), "", "t2"}, {nil, "", "t2"}, {ptr("t1"), "run", "run"},
	} {
		got, ok := pickTab(tabs, c.active, c.ref)
		if !ok || got.Id != c.want {
			t.Errorf("pickTab(active %v, ref %q) = %q %v, want %q", c.active, c.ref, got.Id, ok, c.want)
		}
	}
	if _, ok := pickTab([]mux.Tab{{Id: "run", Layout: l, Run: ptr("r1")}}, ptr("run"), ""); ok {
		t.Error("a workspace of a run's tab alone has a tab to show")
	}
}
