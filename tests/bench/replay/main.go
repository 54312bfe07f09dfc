package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// chunk is one write of the recording: delay seconds after the one before.
type chunk struct {
	delay float64
	data  []byte
}

// Stats is what -stats holds.
type Stats struct {
	Bytes     int64   `json:"bytes"`
	Loops     int     `json:"loops"`
	BehindS   float64 `json:"behind_s"`     // at the end of -for
	MaxBehind float64 `json:"max_behind_s"` // at most, over the paced replay
}

func main() {
	speed := flag.Float64("speed", 1, "replay this many times faster than recorded")
	skip := flag.Float64("skip", 0, "write this fraction (0-1) of the stream at once first")
	dur := flag.Duration("for", time.Minute, "replay (looping) for this long after the skipped part")
	ready := flag.String("ready", "", "create this file when the paced replay starts")
	stats := flag.String("stats", "", "write the statistics here (JSON) at the end")
	flag.Parse()
	if flag.NArg() != 1 || *speed <= 0 || *skip < 0 || *skip >= 1 {
		fmt.Fprintln(os.Stderr, "usage: replay [-speed N] [-skip F] [-for D] [-ready FILE] [-stats FILE] DIR/KIND")
		os.Exit(2)
	}
	chunks, total, err := load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
	raw()
	go io.Copy(io.Discard, os.Stdin)
	out := os.Stdout
	var st Stats
	// The skipped part, at once.
	i, at := 0, 0.0
	for ; i < len(chunks) && at+chunks[i].delay < *skip*total; i++ {
		at += chunks[i].delay
		n, _ := out.Write(chunks[i].data)
		st.Bytes += int64(n)
	}
	if *ready != "" {
		os.WriteFile(*ready, nil, 0o644)
	}
	start := time.Now()
	end := start.Add(*dur)
	// sched is the wall time chunk i is due, relative to start.
	sched := 0.0
	for {
		if i == len(chunks) {
			i = 0
			st.Loops++
		}
		due := start.Add(time.Duration((sched + chunks[i].delay / *speed) * float64(time.Second)))
		if due.After(end) {
			// Everything due by the end is written: behind by how late
			// that was.
			st.BehindS = max(0, time.Since(end).Seconds())
			break
		}
		sched += chunks[i].delay / *speed
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		} else {
			st.MaxBehind = max(st.MaxBehind, -d.Seconds())
		}
		n, _ := out.Write(chunks[i].data)
		st.Bytes += int64(n)
		i++
		if now := time.Now(); now.After(end) {
			// The end came while writing what was due before it.
			st.BehindS = now.Sub(due).Seconds()
			st.MaxBehind = max(st.MaxBehind, st.BehindS)
			break
		}
	}
	if *stats != "" {
		j, _ := json.Marshal(st)
		os.WriteFile(*stats+".tmp", j, 0o644)
		os.Rename(*stats+".tmp", *stats)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// load reads DIR/KIND.data.gz and DIR/KIND.timing.gz; total is the
// stream's length in seconds.
func load(base string) ([]chunk, float64, error) {
	data, err := gunzip(base + ".data.gz")
	if err != nil {
		return nil, 0, err
	}
	timing, err := gunzip(base + ".timing.gz")
	if err != nil {
		return nil, 0, err
	}
	// script's first line is its own header, not the program's output.
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	var chunks []chunk
	total := 0.0
	sc := bufio.NewScanner(bytes.NewReader(timing))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			return nil, 0, fmt.Errorf("%s.timing.gz: bad line %q", base, sc.Text())
		}
		d, err1 := strconv.ParseFloat(f[0], 64)
		n, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || n < 0 || d < 0 {
			return nil, 0, fmt.Errorf("%s.timing.gz: bad line %q", base, sc.Text())
		}
		if n > len(data) {
			break // the last write may be cut off when the recording was killed
		}
		chunks = append(chunks, chunk{d, data[:n]})
		data = data[n:]
		total += d
	}
	if len(chunks) == 0 {
		return nil, 0, fmt.Errorf("%s: no writes", base)
	}
	return chunks, total, nil
}

func gunzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return io.ReadAll(z)
}

// raw turns off echo, line editing and output processing on the terminal,
// as a full-screen program does; not a terminal is fine.
func raw() {
	for _, fd := range []int{0, 1} {
		t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			continue
		}
		t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Cflag &^= unix.CSIZE | unix.PARENB
		t.Cflag |= unix.CS8
		t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
		unix.IoctlSetTermios(fd, unix.TCSETS, t)
	}
}
