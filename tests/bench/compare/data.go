package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// content is a file of output lines, each fitting one row of the screens it
// is used with, so that row i of a pane shows line i (trimmed).
type content struct {
	name  string
	file  string
	lines int
	bytes int64
	text  func(i int) string // what row i shows, trailing spaces trimmed
}

// genContent writes lines raw(0..n-1), each followed by "\n", to dir/name.
func genContent(dir, name string, n int, raw, text func(int) string) (content, error) {
	c := content{name: name, file: filepath.Join(dir, name+".txt"), lines: n, text: text}
	f, err := os.Create(c.file)
	if err != nil {
		return c, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		s := raw(i)
		w.WriteString(s)
		w.WriteByte('\n')
		c.bytes += int64(len(s)) + 1
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return c, err
	}
	return c, f.Close()
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-=[];',./"

// fullLine is exactly cols printable characters.
func fullLine(i, cols int) string {
	var b strings.Builder
	b.Grow(cols)
	b.WriteString(fmt.Sprintf("%09d ", i))
	for k := i; b.Len() < cols; k++ {
		b.WriteByte(alphabet[k%len(alphabet)])
	}
	return b.String()[:cols]
}

// colorLine looks like compiler or test-runner output: several SGR
// sequences per line (bold, 16, 256 and true colours, dim), at most 64 cells.
func colorRaw(i int) string {
	return fmt.Sprintf("\x1b[1;34m%07d\x1b[0m \x1b[32mok\x1b[m  \x1b[38;5;%dmpkg/module%03d\x1b[0m \x1b[2m(%d.%03ds)\x1b[22m \x1b[38;2;255;%d;0mwarn\x1b[m: \x1b[1mx\x1b[0m",
		i, 16+i%216, i%1000, i%7, i%1000, i%256)
}

func colorText(i int) string {
	return fmt.Sprintf("%07d ok  pkg/module%03d (%d.%03ds) warn: x", i, i%1000, i%7, i%1000)
}

// contents makes the throughput inputs (about 15 MB each, like the tmux
// anchor's 2,000,000 seq lines) and the memory inputs.
func makeContents(dir string, quick bool) (map[string]content, error) {
	scale := 1
	if quick {
		scale = 10
	}
	out := map[string]content{}
	add := func(name string, n int, raw, text func(int) string) error {
		c, err := genContent(dir, name, n, raw, text)
		out[name] = c
		return err
	}
	seq := func(i int) string { return strconv.Itoa(i + 1) }
	if err := add("seq", 2000000/scale, seq, seq); err != nil {
		return nil, err
	}
	for _, cols := range []int{80, 200} {
		f := func(i int) string { return fullLine(i, cols) }
		if err := add(fmt.Sprintf("full%d", cols), 15000000/(cols+1)/scale, f, f); err != nil {
			return nil, err
		}
	}
	if err := add("color", 15000000/len(colorRaw(1234567))/scale, colorRaw, colorText); err != nil {
		return nil, err
	}
	// Memory: exactly 10,000 rows of history on a 24-row screen (10,023
	// lines and the empty row the cursor ends on).
	if err := add("short10k", 10023, seq, seq); err != nil {
		return nil, err
	}
	f80 := func(i int) string { return fullLine(i, 80) }
	if err := add("full10k", 10023, f80, f80); err != nil {
		return nil, err
	}
	if err := add("color10k", 10023, colorRaw, colorText); err != nil {
		return nil, err
	}
	return out, nil
}
