package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// `signaltty pane list --fields id,title,state [--limit N] [--after P]`:
// Mux.ListPaneFields, a table with one column per field in the order given
// (--json: the reply); with a limit and more panes left, stderr says what
// --after continues. The daemon validates names and limit.

func paneFieldsFlag(c *cobra.Command) {
	c.Flags().StringSlice("fields", nil, "only these fields of each pane, comma separated, as columns in this order "+
		"(Mux.ListPaneFields; e.g. id,workspace,tab,title,state,lifecycle,attention; names as in Pane)")
	c.Flags().Int64("limit", 0, "with --fields: at most N panes (1..100000)")
	c.Flags().String("after", "", "with --fields: the panes listed after this pane (the last one of the previous page)")
	c.MarkFlagsMutuallyExclusive("fields", "attention")
}

func (a *app) listPaneFields(cmd *cobra.Command, fields []string) error {
	p := params(cmd, "workspace", "tab", "after", "limit")
	p["fields"] = fields
	return a.run(cmd, "dev.signaltty.Mux.ListPaneFields", p, func(raw json.RawMessage) error {
		var r struct {
			Panes []map[string]json.RawMessage
			Next  *string
		}
		if err := decode(raw, &r); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
		cols := make([]string, len(fields))
		for i, f := range fields {
			cols[i] = strings.ToUpper(f)
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
		for _, pane := range r.Panes {
			for i, f := range fields {
				cols[i] = fieldCell(pane[f])
			}
			fmt.Fprintln(tw, strings.Join(cols, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if r.Next != nil {
			fmt.Fprintf(a.errw, "more panes follow: --after %s\n", *r.Next)
		}
		return nil
	})
}

// fieldCell is a value as a table cell: a string as it is (control
// characters, tabs and newlines as spaces), "-" for an absent (null) field,
// anything else as compact JSON.
func fieldCell(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return "-"
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, s)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
