package service

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/runs"
	"github.com/signaltty/signaltty/snapshot"
)

// Settings (docs/persistence.md, "Settings"): the values Server.SetConfig
// changes, read at start from the settings file and then the environment
// (which overrides the file), and written to the file by every SetConfig.

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

// settingsState is the settings bookkeeping; s.mu guards it, except mu,
// which serialises SetSettings (its file write and what it applies) and is
// taken without s.mu.
type settingsState struct {
	path   string           // the settings file; "" none
	file   map[string]int64 // the values the file holds
	origin map[string]string
	mu     *sync.Mutex
}

func newSettingsState() settingsState {
	return settingsState{file: map[string]int64{}, origin: map[string]string{}, mu: &sync.Mutex{}}
}

// checkSetting checks a value for a setting. Errors: invalid_params.<field>
// (the SetConfig field: max_active, retain_count, retain_ms, retain_bytes,
// save_interval_ms, history_rows), or invalid_params.name for an unknown one.
func checkSetting(name string, v int64) *Error {
	n := int(v)
	switch name {
	case SettingRunMaxActive:
		return runs.CheckConfig(&n, nil, nil, nil)
	case SettingRunRetainCount:
		return runs.CheckConfig(nil, &n, nil, nil)
	case SettingRunRetainMs:
		return runs.CheckConfig(nil, nil, &v, nil)
	case SettingRunRetainBytes:
		return runs.CheckConfig(nil, nil, nil, &v)
	case SettingRunRemovePanes:
		if v != 0 && v != 1 {
			return invalid("remove_panes", "range", "remove_panes must be true or false")
		}
		return nil
	case SettingSaveInterval:
		if err := CheckSaveInterval(time.Duration(v) * time.Millisecond); err != nil {
			return err.(*Error)
		}
		return nil
	case SettingHistoryRows:
		return CheckHistoryRows(n)
	}
	return invalid("name", "unknown", "no setting %q", name)
}

// applySetting sets a checked value; s.mu is not held.
func (s *Service) applySetting(name string, v int64) {
	n := int(v)
	switch name {
	case SettingRunMaxActive:
		_, _ = s.SetRunConfig(&n, nil, nil, nil)
	case SettingRunRetainCount:
		_, _ = s.SetRunConfig(nil, &n, nil, nil)
	case SettingRunRetainMs:
		_, _ = s.SetRunConfig(nil, nil, &v, nil)
	case SettingRunRetainBytes:
		_, _ = s.SetRunConfig(nil, nil, nil, &v)
	case SettingRunRemovePanes:
		s.mu.Lock()
		s.runs.SetRemovePanes(v == 1)
		s.mu.Unlock()
	case SettingSaveInterval:
		_ = s.SetSaveInterval(time.Duration(v) * time.Millisecond)
	case SettingHistoryRows:
		_ = s.SetHistoryRows(n)
	}
}

// parseSetting reads a value of the settings file: a decimal integer, or
// for run.remove_panes a boolean (true, false, 1, 0, …; strconv.ParseBool).
func parseSetting(name, text string) (int64, error) {
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

// formatSetting writes a value as parseSetting reads it.
func formatSetting(name string, v int64) string {
	if name == SettingRunRemovePanes {
		return strconv.FormatBool(v == 1)
	}
	return strconv.FormatInt(v, 10)
}

// LoadSettings applies the settings file at path ("" for none; a missing
// file sets nothing), then env (setting name to value, from the daemon's
// environment), which overrides the file; path is where SetSettings writes
// from now on. Call it before serving, after StartPersistence. It returns
// what it ignored: lines that are not "name = value", unknown names,
// values that are not integers or out of range, a file that cannot be
// read. Env values must be checked already.
func (s *Service) LoadSettings(path string, env map[string]int64) (problems []string) {
	var vals map[string]string
	if path != "" {
		var err error
		vals, problems, err = snapshot.ReadSettings(path)
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	file := map[string]int64{}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		v, err := parseSetting(name, vals[name])
		if err != nil {
			problems = append(problems, name+": "+err.Error())
			continue
		}
		if cerr := checkSetting(name, v); cerr != nil {
			problems = append(problems, name+": "+cerr.Message)
			continue
		}
		file[name] = v
		s.applySetting(name, v)
	}
	for name, v := range env {
		s.applySetting(name, v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings.path, s.settings.file = path, file
	for name := range file {
		s.settings.origin[name] = OriginFile
	}
	for name := range env {
		s.settings.origin[name] = OriginEnvironment
	}
	return problems
}

// SetSettings changes settings (Server.SetConfig): every value is checked
// first, then the settings file is rewritten with them added to what it
// holds, then they apply (their origin becomes runtime). Errors:
// invalid_params.<field> (checkSetting), internal when the file cannot be
// written (data.path); either way nothing is changed.
func (s *Service) SetSettings(change map[string]int64) error {
	for _, name := range SettingNames {
		if v, ok := change[name]; ok {
			if err := checkSetting(name, v); err != nil {
				return err
			}
		}
	}
	for name := range change {
		if !slices.Contains(SettingNames, name) {
			return checkSetting(name, 0)
		}
	}
	l := s.settings.mu
	l.Lock()
	defer l.Unlock()
	s.mu.Lock()
	path, file := s.settings.path, maps.Clone(s.settings.file)
	s.mu.Unlock()
	maps.Copy(file, change)
	if path != "" && len(change) > 0 {
		text := map[string]string{}
		for k, v := range file {
			text[k] = formatSetting(k, v)
		}
		if err := snapshot.WriteSettings(path, text); err != nil {
			return newError(errcode.CodeInternal, map[string]any{"path": path}, "the settings were not changed: %v", err)
		}
	}
	// run.remove_panes first: records the new retention evicts follow it.
	for _, name := range append([]string{SettingRunRemovePanes}, SettingNames...) {
		if v, ok := change[name]; ok {
			s.applySetting(name, v)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings.file = file
	for name := range change {
		s.settings.origin[name] = OriginRuntime
	}
	return nil
}

// SettingOrigins says where each setting's value came from, in
// SettingNames order.
func (s *Service) SettingOrigins() []SettingOrigin {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SettingOrigin, 0, len(SettingNames))
	for _, name := range SettingNames {
		o := s.settings.origin[name]
		if o == "" {
			o = OriginDefault
		}
		out = append(out, SettingOrigin{Name: name, Origin: o})
	}
	return out
}

// SettingsFile is the settings file's path ("" when the daemon has none).
func (s *Service) SettingsFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.path
}
