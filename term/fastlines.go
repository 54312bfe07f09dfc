package term

import (
	"bytes"
	"unsafe"

	"github.com/signaltty/signaltty/term/rowstore"
)

// Lines that go straight to the store.
//
// In a long simulation (fastpath.go) most lines scroll off the screen
// before the run ends. A line of printable ASCII no wider than the screen,
// ended by CR LF, met at the start of an empty bottom row in the default
// pen, leaves exactly one row: its text with trailing spaces dropped, no
// style runs, as many cells as bytes. When at least rows line feeds follow
// it, that row leaves the screen too, so it is stored from the input bytes
// without being simulated cell by cell; the rows on the simulated screen
// above it go to the store first (they would scroll off before it), and
// the simulation then goes on from an empty screen, which the rest of the
// run (rows line feeds or more) fills again.

// directLimit returns the index of the rows-th line feed of b counted from
// its end, or -1 when b has fewer: a line whose line feed comes before it
// has at least rows line feeds after it.
func directLimit(b []byte, rows int) int {
	end := len(b)
	for k := 0; k < rows; k++ {
		end = bytes.LastIndexByte(b[:end], '\n')
		if end < 0 {
			return -1
		}
	}
	return end
}

// directLines stores the lines of b from i on that qualify (see above)
// and whose line feed comes before limit, and returns where the first line
// that does not starts. The simulation must be at the start of an empty
// bottom row in the default pen with nothing buffered.
func (f *fastPath) directLines(b []byte, i, limit int, s *sim) int {
	t := f.t
	flushed := false
	for i < limit {
		j := i
		for j < len(b) && j-i <= t.cols && b[j] >= 0x20 && b[j] < 0x7f {
			j++
		}
		if j-i > t.cols || j+1 >= limit || b[j] != '\r' || b[j+1] != '\n' {
			break
		}
		if !flushed {
			f.flushSimRows()
			flushed = true
		}
		n := j
		for n > i && b[n-1] == ' ' {
			n--
		}
		r := rowstore.Row{Cells: int32(n - i)}
		if n > i {
			r.Text = unsafe.String(&b[i], n-i) // Push copies it
		}
		t.pushRow(r)
		f.directRows++
		if j > i {
			s.last = b[j-1]
		}
		i = j + 2
	}
	return i
}

// flushSimRows moves the simulated rows above the bottom row to the store,
// oldest first, and empties the ring.
func (f *fastPath) flushSimRows() {
	t := f.t
	fs := &f.fs
	for k := 0; k < fs.n; k++ {
		i := (fs.head + k) % len(fs.ring)
		t.pushRow(f.buildSim(fs.ring[i][:fs.ringHi[i]]))
	}
	fs.head, fs.n = 0, 0
}
