package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	seqFile      = "sequence"
	evidenceFile = "evidence.json"
	segPrefix    = "segment-"
	segSuffix    = ".jsonl"
)

// writeSeq writes the sequence file: bound, and the lost-range mark.
func (j *Journal) writeSeq(bound int64) error {
	text := strconv.FormatInt(bound, 10)
	if j.lostFrom != 0 {
		text += " lost_from " + strconv.FormatInt(j.lostFrom, 10)
	}
	if err := writeAtomic(j.dir, seqFile, []byte(text+"\n")); err != nil {
		if overwriteSeq(filepath.Join(j.dir, seqFile), bound, j.lostFrom) != nil {
			return err
		}
	}
	return nil
}

// overwriteSeq writes the sequence file's text over its first 64 bytes
// (space-padded and a newline: within one sector, so a crash leaves the
// old text or the new one) and syncs it; it allocates no new block.
func overwriteSeq(path string, bound, lostFrom int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	text := strconv.FormatInt(bound, 10)
	if lostFrom != 0 {
		text += " lost_from " + strconv.FormatInt(lostFrom, 10)
	}
	if _, err := f.WriteAt([]byte(fmt.Sprintf("%-63s\n", text)), 0); err != nil {
		return err
	}
	return unix.Fdatasync(int(f.Fd()))
}

// segmentFiles lists the segment files in seq order.
func (j *Journal) segmentFiles() ([]string, error) {
	ents, err := os.ReadDir(j.dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	sort.Strings(out) // zero-padded first seq: lexical order is seq order
	return out, nil
}

func segFirst(name string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, segPrefix), segSuffix), 10, 64)
	return n
}

// readSegment parses a segment: its records, what is torn ("" if nothing:
// a last line without its newline, a line that does not parse, seqs not
// increasing) and its length.
func readSegment(path string) (recs []Record, torn string, n int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", 0, fmt.Errorf("journal: %w", err)
	}
	n = int64(len(data))
	r := bufio.NewReader(bytes.NewReader(data))
	last := int64(-1)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 {
				return recs, fmt.Sprintf("a torn tail of %d bytes", len(line)), n, nil
			}
			return recs, "", n, nil
		}
		var rec Record
		if json.Unmarshal(line, &rec) != nil {
			return recs, "a line that does not parse", n, nil
		}
		if rec.Seq <= last {
			return recs, fmt.Sprintf("seq %d after %d", rec.Seq, last), n, nil
		}
		last = rec.Seq
		recs = append(recs, rec)
	}
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// readSeq reads the sequence file: "<bound>", or "<bound> lost_from
// <seq>" while a lost range is not yet in the evidence; either may be
// padded with spaces.
func readSeq(path string) (bound, lostFrom int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1, 0, err
	}
	f := strings.Fields(string(b))
	bad := fmt.Errorf("%q is not a sequence number", strings.TrimSpace(string(b)))
	if len(f) != 1 && (len(f) != 3 || f[1] != "lost_from") {
		return -1, 0, bad
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || v < 0 {
		return -1, 0, bad
	}
	if len(f) == 3 {
		if lostFrom, err = strconv.ParseInt(f[2], 10, 64); err != nil || lostFrom <= 0 {
			return -1, 0, bad
		}
	}
	return v, lostFrom, nil
}

// writeAtomic replaces dir/name with data: temporary file, fsync, rename,
// directory fsync.
func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("journal: write %s: %w", name, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: write %s: %w", name, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("journal: sync %s: %w", dir, err)
	}
	return nil
}
