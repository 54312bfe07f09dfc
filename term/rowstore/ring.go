package rowstore

import (
	"sort"
	"unsafe"
)

// Ring is the history: rows bounded by a row count and a byte budget,
// dropping the oldest first. Push and drop are O(1) amortised, finding a
// row O(log blocks).
//
// Rows are kept compactly in blocks: one block holds up to blockRows rows
// as one byte arena of their texts with an end offset and a width per row,
// and, only when one of its rows has style runs, the runs of all its rows
// with their styles interned per block. A short row of text thus costs its
// bytes plus 8; the row headers of the Rows at returns are made on
// the way out. A block is released once all its rows were dropped, so at
// most one block's worth of dropped rows stays allocated.
//
// Arena bytes once written never change (appending writes only past them),
// so the text of a returned row aliases the arena and stays valid after the
// row is dropped.
type Ring struct {
	blocks   []*rowBlock // oldest first; the last one is being filled
	first    int         // rows of blocks[0] already dropped
	n        int         // rows kept
	bytes    int         // budget used
	maxRows  int
	maxBytes int
	base     int64 // serial number of blocks[0]'s row 0
	textHint int   // text bytes of the last block filled: the next one's first capacity
}

// blockRows bounds the rows of one block.
const blockRows = 256

// rowBlock holds consecutive rows.
type rowBlock struct {
	base   int64    // serial number of its row 0 (rows pushed since reset)
	text   []byte   // the rows' texts, one after the other
	ends   []uint32 // ends[i]: end of row i's text in text
	cells  []int32  // display width of each row's text
	runEnd []uint32 // nil while no row has runs; else runEnd[i]: end of row i's runs
	runs   []blockRun
	styles []string          // interned style encodings
	index  map[string]uint32 // styles → index, while the block is filled
	sealed bool
}

// blockRun is a StyleRun whose style is an index into the block's styles.
type blockRun struct {
	start, n uint16
	style    uint32
}

// NewRing returns an empty ring keeping at most maxRows rows and maxBytes
// bytes (Row.Size).
func NewRing(maxRows, maxBytes int) Ring {
	return Ring{maxRows: maxRows, maxBytes: maxBytes}
}

// blockBytes is the text a block holds at most before the next row starts
// a new one: a small part of the budget, so dropped rows waiting for their
// block to go cost little of it.
func (r *Ring) blockBytes() int {
	return min(max(r.maxBytes/32, 1<<10), 64<<10)
}

// Push appends a copy of row as the newest, evicting the oldest rows as
// needed. A row larger than the whole budget is not kept (it counts as
// pushed and dropped). row's text and runs may be scratch space: nothing
// of them is kept.
func (r *Ring) Push(row Row) {
	sz := row.Size()
	for r.n > 0 && (r.n >= r.maxRows || r.bytes+sz > r.maxBytes) {
		r.DropOldest()
	}
	if sz > r.maxBytes || r.maxRows <= 0 {
		return
	}
	b := r.fillBlock(len(row.Text))
	b.text = append(b.text, row.Text...)
	b.ends = append(b.ends, uint32(len(b.text)))
	b.cells = append(b.cells, row.Cells)
	if len(row.Runs) > 0 || b.runEnd != nil {
		b.addRuns(row.Runs)
	}
	r.n++
	r.bytes += sz
}

// fillBlock returns the block the next row (of textLen bytes) goes into,
// sealing the last one and starting another when it is full.
func (r *Ring) fillBlock(textLen int) *rowBlock {
	if k := len(r.blocks); k > 0 {
		b := r.blocks[k-1]
		if len(b.ends) < blockRows && (len(b.text) == 0 || len(b.text)+textLen <= r.blockBytes()) {
			return b
		}
		b.seal()
		r.textHint = len(b.text)
	}
	base := r.base + int64(r.first) + int64(r.n)
	b := &rowBlock{
		base:  base,
		text:  make([]byte, 0, min(max(r.textHint+r.textHint/16, 256, textLen), r.blockBytes())),
		ends:  make([]uint32, 0, blockRows),
		cells: make([]int32, 0, blockRows),
	}
	if len(r.blocks) == 0 {
		r.base, r.first = base, 0
	}
	r.blocks = append(r.blocks, b)
	return b
}

// addRuns appends a row's style runs (none: an empty entry).
func (b *rowBlock) addRuns(runs []StyleRun) {
	if b.runEnd == nil {
		b.runEnd = make([]uint32, len(b.ends)-1, cap(b.ends))
		b.index = map[string]uint32{}
	}
	for _, sr := range runs {
		id, ok := b.index[sr.Style]
		if !ok {
			id = uint32(len(b.styles))
			b.styles = append(b.styles, sr.Style)
			b.index[sr.Style] = id
		}
		b.runs = append(b.runs, blockRun{start: sr.Start, n: sr.N, style: id})
	}
	b.runEnd = append(b.runEnd, uint32(len(b.runs)))
}

// seal trims a full block's storage to what it holds.
func (b *rowBlock) seal() {
	if b.sealed {
		return
	}
	b.sealed = true
	b.text = clip(b.text)
	b.ends = clip(b.ends)
	b.cells = clip(b.cells)
	if b.runEnd != nil {
		b.runEnd = clip(b.runEnd)
		b.runs = clip(b.runs)
		b.styles = clip(b.styles)
	}
	b.index = nil
}

// clip returns s in storage of its length, copying it when that saves more
// than an eighth.
func clip[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/8 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// span returns where row i's text and runs are in the block.
func (b *rowBlock) span(i int) (t0, t1, r0, r1 int) {
	if i > 0 {
		t0 = int(b.ends[i-1])
		if b.runEnd != nil {
			r0 = int(b.runEnd[i-1])
		}
	}
	t1 = int(b.ends[i])
	if b.runEnd != nil {
		r1 = int(b.runEnd[i])
	}
	return
}

// size is what row i costs the byte budget (Row.Size).
func (b *rowBlock) size(i int) int {
	t0, t1, r0, r1 := b.span(i)
	n := t1 - t0
	for _, br := range b.runs[r0:r1] {
		n += RunCost + len(b.styles[br.style])
	}
	return n
}

// row returns row i of the block, with its style runs when withRuns.
func (b *rowBlock) row(i int, withRuns bool) Row {
	t0, t1, r0, r1 := b.span(i)
	r := Row{Cells: b.cells[i]}
	if t1 > t0 {
		r.Text = unsafe.String(&b.text[t0], t1-t0)
	}
	if withRuns && r1 > r0 {
		r.Runs = make([]StyleRun, r1-r0)
		for k, br := range b.runs[r0:r1] {
			r.Runs[k] = StyleRun{Start: br.start, N: br.n, Style: b.styles[br.style]}
		}
	}
	return r
}

func (r *Ring) DropOldest() {
	b := r.blocks[0]
	r.bytes -= b.size(r.first)
	r.first++
	r.n--
	if r.first == len(b.ends) && (len(r.blocks) > 1 || r.n == 0) {
		r.blocks[0] = nil
		r.blocks = r.blocks[1:]
		r.base += int64(r.first)
		r.first = 0
		if len(r.blocks) == 0 {
			r.blocks = nil
		}
	}
}

// At returns the i-th kept row, 0 being the oldest (0 ≤ i < n).
func (r *Ring) At(i int) Row {
	b, j := r.locate(i)
	return b.row(j, true)
}

// TextAt returns the i-th kept row without its style runs (a row to be
// read as text: Padded, BlankIn, PaddedLen), allocating nothing.
func (r *Ring) TextAt(i int) Row {
	b, j := r.locate(i)
	return b.row(j, false)
}

// locate returns the block of the i-th kept row and its index there.
func (r *Ring) locate(i int) (*rowBlock, int) {
	s := r.base + int64(r.first) + int64(i)
	k := len(r.blocks) - 1
	if s < r.blocks[k].base {
		k = sort.Search(len(r.blocks), func(k int) bool { return r.blocks[k].base > s }) - 1
	}
	b := r.blocks[k]
	return b, int(s - b.base)
}

// Reset drops every row and releases the storage.
func (r *Ring) Reset() {
	r.blocks, r.first, r.n, r.bytes, r.base = nil, 0, 0, 0, 0
}

// Len is the number of rows kept.
func (r *Ring) Len() int { return r.n }

// Bytes is what the kept rows cost the byte budget (Row.Size, summed).
func (r *Ring) Bytes() int { return r.bytes }
