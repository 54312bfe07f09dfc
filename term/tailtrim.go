package term

// TailTrimmed is Tail with each line cut after its last non-space cell
// instead of padded to Cols cells (a snapshot's saved rows, a relaunch's
// kept rows): line i is strings.TrimRight(Tail(…).Lines[i], " "), and
// maxBytes counts those shorter lines. It builds no padded lines, so it
// leaves a few bytes of garbage per short row where Tail leaves Cols.
func (t *Terminal) TailTrimmed(maxRows, maxBytes int) Tail {
	return t.tail(maxRows, maxBytes, tailTrimmed)
}

// tailForm is how Terminal.tail renders its lines.
type tailForm int

const (
	tailPadded  tailForm = iota // Tail: padded to Cols cells
	tailTrimmed                 // TailTrimmed: without trailing spaces
	tailStyled                  // TailStyled: the saved form (savedrows.go)
)
