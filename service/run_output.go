package service

import "github.com/signaltty/signaltty/term"

// runOutput is a run's output tail (docs/run-wait.md, "Output tail") from its
// pane's final rows; offset is the bytes of output the pane produced.
func runOutput(t term.Tail, offset int64) *RunOutput {
	if t.Lines == nil {
		t.Lines = []string{}
	}
	return &RunOutput{Screen: t.Screen, Epoch: t.Epoch, Offset: offset, Cols: t.Cols, Rows: t.Rows,
		Oldest: t.Oldest, Start: t.Start, End: t.End, Lines: t.Lines, bytes: t.Bytes,
		Complete: t.Epoch == 0 && t.Oldest == 0 && t.Start == 0}
}
