package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadCounter returns the number in the state directory's file name: one
// decimal integer, 0 or more, and a newline. A missing file is 0 with no
// error; a file that cannot be read, or holds anything else, is an error
// (the caller decides what a lost counter means).
func (s *Store) ReadCounter(name string) (int64, error) {
	path := filepath.Join(s.dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(string(b), "\n"), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("snapshot: %s does not hold a number: %q", path, b)
	}
	return n, nil
}

// WriteCounter replaces the state directory's file name with n, durably:
// the directory is made when missing, the file written atomically and
// fsynced, then the directory (so after a crash the file holds the old or
// the new number). Errors name the path.
func (s *Store) WriteCounter(name string, n int64) error {
	if err := s.ensureDir(s.dir); err != nil {
		return err
	}
	return s.writeAtomic(s.dir, name, []byte(strconv.FormatInt(n, 10)+"\n"), true)
}
