package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SettingsHeader opens every settings file WriteSettings writes.
const SettingsHeader = "# signaltty settings (docs/persistence.md, \"Settings\"), written by `signaltty config set`.\n"

// ReadSettings reads a settings file: UTF-8 lines "name = value" (spaces
// around both optional), blank lines, and comments from "#" at the start
// of a line. A missing file holds no settings and is no error. Lines that
// are not of that shape, or repeat a name (the last one counts), are
// reported in problems ("line N: …") and skipped; err is for a file that
// exists but cannot be read.
func ReadSettings(path string) (values map[string]string, problems []string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("settings: %w", err)
	}
	values = map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok || name == "" || value == "":
			problems = append(problems, fmt.Sprintf("line %d: not \"name = value\": %q", n, line))
			continue
		case values[name] != "":
			problems = append(problems, fmt.Sprintf("line %d: %s is set again; the last one counts", n, name))
		}
		values[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	return values, problems, nil
}

// WriteSettings replaces the settings file at path with values, one
// "name = value" line each in name order after SettingsHeader: its
// directory is made (0700) when missing, the file written to a temporary
// file, fsynced and renamed over the old one (0600), then the directory
// fsynced, so a reader sees the old or the new file, never part of one.
// Errors name the path.
func WriteSettings(path string, values map[string]string) error {
	var b strings.Builder
	b.WriteString(SettingsHeader)
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%s = %s\n", k, values[k])
	}
	dir := filepath.Dir(path)
	w := &Store{dir: dir, sync: defaultSyncer}
	if err := w.ensureDir(dir); err != nil {
		return err
	}
	return w.writeAtomic(dir, filepath.Base(path), []byte(b.String()), true)
}
