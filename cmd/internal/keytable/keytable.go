package keytable

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Key is one binding: the table it is in, the key as the docs name it,
// where it works ("attach", "tab" or "attach, tab") and what it does.
type Key struct {
	Table, Key, Where, Does string
}

const both = "attach, tab"

// Keys is every binding, table by table.
var Keys = []Key{
	{"root", `C-\`, both, "detach (--detach-key)"},
	{"root", "C-b", both, "the prefix (--prefix): the next key is a command of the prefix table"},
	{"prefix", "[", both, "the history view (--history-key)"},
	{"prefix", "PageUp", both, "the history view, a page up"},
	{"prefix", "C-b", both, "send the prefix to the pane"},
	{"prefix", `C-\`, "attach", "send the prefix, then detach"},
	{"prefix", "any other", "attach", "send the prefix and the key"},
	{"prefix", "o, n, Tab, Right, Down", "tab", "focus the next pane"},
	{"prefix", "p, Left, Up", "tab", "focus the previous pane"},
	{"prefix", "a", "tab", "focus the next pane that needs you (most urgent first) and mark it seen"},
	{"prefix", "z", "tab", "zoom the focused pane to the whole view, and back"},
	{"prefix", `d, C-\`, "tab", "detach"},
	{"history", "Up, k / Down, j", both, "the cursor a row older / newer, scrolling at the edge"},
	{"history", "Left, h / Right, l", both, "the cursor a cell left / right"},
	{"history", "0, ^ / $", both, "the cursor to the row's start / its last character"},
	{"history", "Enter", both, "copy the selection; without one, the cursor a row newer"},
	{"history", "C-y / C-e", both, "scroll a row older / newer"},
	{"history", "PageUp, C-b / PageDown, C-f", both, "scroll a page"},
	{"history", "C-u / C-d", both, "scroll half a page"},
	{"history", "g, Home / G, End", both, "the oldest row / the pane's newest row now"},
	{"history", "/ / ?", both, "search towards newer / older rows (plain text, or re: and an RE2 expression)"},
	{"history", "n / N", both, "the next match in the search's direction / the other"},
	{"history", "v, Space", both, "begin (or end) selecting characters at the cursor"},
	{"history", "V", both, "select whole rows (or end it)"},
	{"history", "C-v, r", both, "toggle the selection between a rectangle and characters"},
	{"history", "y", both, "copy the selection to the clipboard (OSC 52)"},
	{"history", "s", both, "save the selection (or the cursor's row) to a file"},
	{"history", "q, Escape, C-c", both, "back to the live pane"},
	{"history", "click elsewhere", "tab", "with --mouse, a press on another pane: back to the live panes, focusing it"},
	{"history", "wheel", both, "scroll three rows"},
	{"history", "drag", both, "select characters; the release copies them"},
	{"mouse", "wheel up", both, "over a pane that takes no mouse reports: its history view, three rows up"},
	{"mouse", "drag", "attach", "over a pane that takes no mouse reports: the history view, selecting"},
	{"mouse", "click", "tab", "focus the pane"},
	{"mouse", "drag a border", "tab", "resize the split (saved in the layout)"},
	{"mouse", "any", both, "over a pane that asked for mouse reports: sent to it"},
	{"navigator", "N", "navigator", "attach to pane N"},
	{"navigator", "tN", "navigator", "the tab view of pane N's tab"},
	{"navigator", "a", "navigator", "attach to the first pane marked ! (it needs you)"},
	{"navigator", "q", "navigator", "quit"},
}

// Print writes the keys as `signaltty attach --keys` shows them: one a
// line, in columns TABLE, KEY, WHERE, DOES.
func Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tKEY\tWHERE\tDOES")
	for _, k := range Keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Table, k.Key, k.Where, k.Does)
	}
	return tw.Flush()
}

// Markdown is the keys as the table of docs/attach.md, "Keys".
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Table | Key | Where | Does |\n|---|---|---|---|\n")
	for _, k := range Keys {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k.Table, code(k.Table, k.Key), k.Where, strings.ReplaceAll(k.Does, "|", `\|`))
	}
	return b.String()
}

// code puts each key of a list ("a, b / c") in backticks; a mouse action
// or "any other" is words, not keys.
func code(table, keys string) string {
	if table == "mouse" || strings.Contains(keys, "wheel") || strings.Contains(keys, "drag") || strings.Contains(keys, "click") || strings.HasPrefix(keys, "any") {
		return keys
	}
	var out []string
	for _, group := range strings.Split(keys, " / ") {
		alts := strings.Split(group, ", ")
		for i, k := range alts {
			alts[i] = "`" + k + "`"
		}
		out = append(out, strings.Join(alts, ", "))
	}
	return strings.Join(out, " / ")
}
