package persist

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/signaltty/signaltty/service/errcode"
)

// Settings (docs/persistence.md, "Settings"): the values Server.SetConfig
// changes, read at start from the settings file and then the environment
// (which overrides the file), and written to the file by every change.

// Origins of a setting's value.
const (
	OriginDefault     = "default"     // nothing set it
	OriginFile        = "file"        // the settings file, at start
	OriginEnvironment = "environment" // a variable of the daemon's environment, at start
	OriginRuntime     = "runtime"     // Server.SetConfig since start
)

// Setting names, as the settings file and `signaltty config get` spell them.
const (
	SettingRunMaxActive   = "run.max_active"
	SettingRunRetainCount = "run.retain_count"
	SettingRunRetainMs    = "run.retain_ms"
	SettingRunRetainBytes = "run.retain_bytes"
	SettingRunRemovePanes = "run.remove_panes" // a boolean, 0 or 1 (false or true in the file)
	SettingSaveInterval   = "save_interval_ms"
	SettingHistoryRows    = "history_rows"
)

// SettingNames lists every setting in the order config get shows them.
var SettingNames = []string{SettingRunMaxActive, SettingRunRetainCount, SettingRunRetainMs, SettingRunRetainBytes,
	SettingRunRemovePanes, SettingSaveInterval, SettingHistoryRows}

// SettingOrigin is where one setting's value came from.
type SettingOrigin struct{ Name, Origin string }

// Parse reads a value of the settings file: a decimal integer, or for
// run.remove_panes a boolean (true, false, 1, 0, …; strconv.ParseBool).
func Parse(name, text string) (int64, error) {
	if name == SettingRunRemovePanes {
		b, err := strconv.ParseBool(text)
		if err != nil {
			return 0, fmt.Errorf("not true or false: %s", text)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %s", text)
	}
	return v, nil
}

// Format writes a value as Parse reads it.
func Format(name string, v int64) string {
	if name == SettingRunRemovePanes {
		return strconv.FormatBool(v == 1)
	}
	return strconv.FormatInt(v, 10)
}

// ParseFile reads the values of a settings file (text by name, as
// snapshot.ReadSettings returns them), in name order, keeping those that
// parse and that check accepts; problems says why each other one was left
// out.
func ParseFile(text map[string]string, check func(name string, v int64) *errcode.Error) (values map[string]int64, problems []string) {
	values = map[string]int64{}
	for _, name := range slices.Sorted(maps.Keys(text)) {
		v, err := Parse(name, text[name])
		if err != nil {
			problems = append(problems, name+": "+err.Error())
			continue
		}
		if cerr := check(name, v); cerr != nil {
			problems = append(problems, name+": "+cerr.Message)
			continue
		}
		values[name] = v
	}
	return values, problems
}

// FileText is values as the settings file holds them (Format).
func FileText(values map[string]int64) map[string]string {
	text := make(map[string]string, len(values))
	for k, v := range values {
		text[k] = Format(k, v)
	}
	return text
}

// Settings is the daemon's settings bookkeeping: the settings file, the
// values it holds and where each value came from. Its methods run under
// the caller's lock, except BeginChange and EndChange, which serialise
// changes (their file write and what they apply) and are called without it.
type Settings struct {
	change sync.Mutex
	path   string           // the settings file; "" none
	file   map[string]int64 // the values the file holds
	origin map[string]string
}

// NewSettings returns settings with no file and every value a default.
func NewSettings() *Settings {
	return &Settings{file: map[string]int64{}, origin: map[string]string{}}
}

// BeginChange waits for other changes to end; EndChange ends this one.
func (st *Settings) BeginChange() { st.change.Lock() }

// EndChange ends a change BeginChange began.
func (st *Settings) EndChange() { st.change.Unlock() }

// Loaded records the start: the file at path holds file, and the names of
// env were set by the environment (overriding the file).
func (st *Settings) Loaded(path string, file, env map[string]int64) {
	st.path, st.file = path, file
	for name := range file {
		st.origin[name] = OriginFile
	}
	for name := range env {
		st.origin[name] = OriginEnvironment
	}
}

// Path is the settings file's path ("" when there is none).
func (st *Settings) Path() string { return st.path }

// WithChange is the settings file's path and what the file holds with
// change applied (a copy).
func (st *Settings) WithChange(change map[string]int64) (path string, file map[string]int64) {
	file = maps.Clone(st.file)
	maps.Copy(file, change)
	return st.path, file
}

// Changed records a change: the file now holds file, and the names of
// change were set at runtime.
func (st *Settings) Changed(file, change map[string]int64) {
	st.file = file
	for name := range change {
		st.origin[name] = OriginRuntime
	}
}

// Origins says where each setting's value came from, in SettingNames
// order.
func (st *Settings) Origins() []SettingOrigin {
	out := make([]SettingOrigin, 0, len(SettingNames))
	for _, name := range SettingNames {
		o := st.origin[name]
		if o == "" {
			o = OriginDefault
		}
		out = append(out, SettingOrigin{Name: name, Origin: o})
	}
	return out
}
