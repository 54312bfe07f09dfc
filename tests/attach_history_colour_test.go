package tests

// The history view draws history rows in the colours the program printed
// them in: the outer tmux's capture-pane -e of the view equals tmux's own
// capture of the same output (docs/attach.md, "History view").

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// colourRows prints 200 rows, each with a foreground colour and bold, a
// plain word and a 256-colour background.
const colourRows = `for i in $(seq 1 200); do printf '\033[3%dm\033[1mcol-%d\033[0m plain \033[48;5;%dmbg\033[0m\n' $((i%8)) $i $((i%256)); done`

// sgrSeq is an SGR sequence, as capture-pane -e writes them.
var sgrSeq = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// styledRows reads a capture-pane -e: for each row's text (trailing
// spaces trimmed), its cells each with the SGR state it is drawn in
// (capture-pane carries the state from one row to the next), written as
// "c{attributes}" per cell, trailing blank cells of the default state
// left out; so two captures compare by what their cells show, not by
// how the sequences were written.
func styledRows(capture string) map[string]string {
	out := map[string]string{}
	state := map[string]string{}
	for _, line := range strings.Split(capture, "\n") {
		var cells []string
		for len(line) > 0 {
			if m := sgrSeq.FindStringSubmatchIndex(line); m != nil && m[0] == 0 {
				params := strings.Split(line[m[2]:m[3]], ";")
				for i := 0; i < len(params); i++ {
					switch p := params[i]; {
					case p == "" || p == "0":
						state = map[string]string{}
					case p == "1" || p == "7" || p == "4" || p == "3" || p == "2":
						state["a"+p] = "on"
					case p == "22":
						delete(state, "a1")
						delete(state, "a2")
					case p == "27" || p == "24" || p == "23":
						delete(state, "a"+p[1:])
					case p == "39":
						delete(state, "fg")
					case p == "49":
						delete(state, "bg")
					case (p == "38" || p == "48") && i+2 < len(params) && params[i+1] == "5":
						state[map[string]string{"38": "fg", "48": "bg"}[p]] = "5;" + params[i+2]
						i += 2
					case len(p) == 2 && (p[0] == '3' || p[0] == '4') || len(p) == 2 && (p[0] == '9') || len(p) == 3 && p[:2] == "10":
						state[map[byte]string{'3': "fg", '4': "bg", '9': "fg", '1': "bg"}[p[0]]] = p
					}
				}
				line = line[m[1]:]
				continue
			}
			keys := make([]string, 0, len(state))
			for k, v := range state {
				keys = append(keys, k+"="+v)
			}
			slices.Sort(keys)
			cells = append(cells, line[:1]+"{"+strings.Join(keys, ",")+"}")
			line = line[1:]
		}
		for len(cells) > 0 && cells[len(cells)-1] == " {}" {
			cells = cells[:len(cells)-1]
		}
		var text strings.Builder
		for _, c := range cells {
			text.WriteByte(c[0])
		}
		out[strings.TrimRight(text.String(), " ")] = strings.Join(cells, "")
	}
	return out
}

func TestAttachHistoryRowsHaveTheColoursTheProgramPrinted(t *testing.T) {
	t.Parallel()
	harness.NeedTmux(t)
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "history-colour")
	p := d.Spawn(t, ws(w), "sh", "-c", colourRows+"; exec sleep 1000")
	d.WaitLine(t, p.ID, "col-200 plain bg")
	ref := d.Tmux(t, 80, 24, "sh", "-c", colourRows+"; exec sleep 1000")
	ref.WaitScreen(t, "tmux shows the rows too", func(rows []string) bool { return hasRow(rows, "col-200 plain bg") })
	want := styledRows(ref.Tmux(t, "capture-pane", "-p", "-e", "-S", "-300", "-t", "0"))
	m := attached(t, d, p.ID, 80, 24)
	m.SendKeys(t, "C-b", "[")
	m.SendText(t, "?col-100 ")
	m.SendKeys(t, "Enter")
	m.WaitScreen(t, "the search shows row col-100", func(rows []string) bool { return hasRow(rows, "col-100 plain bg") })
	compared := 0
	for text, got := range styledRows(m.ScreenEscapes(t)) {
		if !strings.HasPrefix(text, "col-") || strings.HasPrefix(text, "col-100 ") { // the match is drawn reversed
			continue
		}
		compared++
		if w, ok := want[text]; !ok || w != got {
			t.Errorf("row %q:\n the view %s\n tmux     %s", text, got, w)
		}
	}
	if compared < 10 {
		t.Fatalf("only %d history rows compared:\n%s", compared, m.ScreenEscapes(t))
	}
}
