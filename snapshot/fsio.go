package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// File and directory modes: the state holds terminal contents and is the
// user's alone.
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// tmpInfix marks a temporary file: "." + target name + tmpInfix + random.
const tmpInfix = ".tmp-"

// syncer makes writes durable. Tests replace it to count or fail fsyncs.
type syncer struct {
	file func(f *os.File) error
	dir  func(path string) error
}

var defaultSyncer = syncer{file: (*os.File).Sync, dir: syncDir}

// syncDir fsyncs a directory so that entries created or renamed in it
// survive a crash.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync a directory; their entries are then as
	// durable as they get.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil
	}
	return err
}

// writeAtomic replaces dir/name with data: a temporary file in dir, written,
// fsynced and renamed over the target, then, when syncParent is set, dir
// fsynced. Either the old or the new contents are at dir/name afterwards; on
// failure no temporary file is left. Errors name the target path.
func (s *Store) writeAtomic(dir, name string, data []byte, syncParent bool) (err error) {
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+tmpInfix+"*")
	if err != nil {
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		if err == nil {
			return
		}
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
		err = fmt.Errorf("snapshot: write %s: %w", path, err)
	}()
	// CreateTemp makes the file 0600 regardless of the umask; keep it so.
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = s.sync.file(f); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	if syncParent {
		if err = s.sync.dir(dir); err != nil {
			return fmt.Errorf("sync directory: %w", err)
		}
	}
	return nil
}

// ensureDir creates dir (0700) if it is missing, fsyncing its parent when it
// did, and fails unless dir is a directory.
func (s *Store) ensureDir(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("snapshot: %s is not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := s.sync.dir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("snapshot: sync directory %s: %w", filepath.Dir(dir), err)
	}
	return nil
}

// isTemp reports whether a directory entry is one of our temporary files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpInfix)
}

// removeTemps deletes temporary files a crash left in dir, and temporary
// directories (a copy's tails being built, copy_tails.go).
func removeTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		switch {
		case !isTemp(e.Name()):
		case e.Type().IsRegular():
			os.Remove(filepath.Join(dir, e.Name()))
		case e.IsDir():
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
