package service

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/persist"
	"github.com/signaltty/signaltty/service/request"
	"github.com/signaltty/signaltty/service/runs"
	"github.com/signaltty/signaltty/snapshot"
	"github.com/signaltty/signaltty/term"
)

// Settings (docs/persistence.md, "Settings"): the names, values, file and
// origins are package persist's; the service checks and applies them.

// Origins of a setting's value (persist.Settings).
const (
	OriginDefault     = persist.OriginDefault
	OriginFile        = persist.OriginFile
	OriginEnvironment = persist.OriginEnvironment
	OriginRuntime     = persist.OriginRuntime
)

// Setting names, as the settings file and `signaltty config get` spell them.
const (
	SettingRunMaxActive   = persist.SettingRunMaxActive
	SettingRunRetainCount = persist.SettingRunRetainCount
	SettingRunRetainMs    = persist.SettingRunRetainMs
	SettingRunRetainBytes = persist.SettingRunRetainBytes
	SettingRunRemovePanes = persist.SettingRunRemovePanes
	SettingSaveInterval   = persist.SettingSaveInterval
	SettingHistoryRows    = persist.SettingHistoryRows
)

// SettingNames lists every setting in the order config get shows them.
var SettingNames = persist.SettingNames

// SettingOrigin is where one setting's value came from.
type SettingOrigin = persist.SettingOrigin

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
		return request.CheckSaveInterval(time.Duration(v) * time.Millisecond)
	case SettingHistoryRows:
		return CheckHistoryRows(n)
	}
	return invalid("name", "unknown", "no setting %q", name)
}

// settingTarget is what the settings set beyond their own values: the
// service's verbs (each called without the service's lock).
type settingTarget interface {
	Runs() Runs
	Persistence() *persist.Saver
}

// Settings is the daemon's settings: persist's bookkeeping of the settings
// file, the values it holds and their origins, the history depth of new
// panes, the idle emulator release delay and the limits in force; and how
// a value applies (to the runs' table under the service's lock, mu, or
// through target). Service.Settings returns it; no method wants mu held.
type Settings struct {
	book        *persist.Settings
	mu          *sync.Mutex
	runs        *runs.Table
	target      settingTarget
	historyRows int // under mu; 0: DefaultHistoryRows (history.go)
	parker      *term.Parker
	limits      *limitState
}

// Settings returns the daemon's settings.
func (s *Service) Settings() *Settings { return s.settings }

// newSettings returns settings with no file and every value a default or
// cfg's; mu is the service's lock, which guards table.
func newSettings(mu *sync.Mutex, table *runs.Table, target settingTarget, cfg Config, parker *term.Parker, limits *limitState) *Settings {
	return &Settings{book: persist.NewSettings(), mu: mu, runs: table, target: target, historyRows: cfg.HistoryRows, parker: parker, limits: limits}
}

// apply sets a checked value; mu is not held.
func (st *Settings) apply(name string, v int64) {
	n := int(v)
	switch name {
	case SettingRunMaxActive:
		_, _ = st.target.Runs().SetConfig(&n, nil, nil, nil)
	case SettingRunRetainCount:
		_, _ = st.target.Runs().SetConfig(nil, &n, nil, nil)
	case SettingRunRetainMs:
		_, _ = st.target.Runs().SetConfig(nil, nil, &v, nil)
	case SettingRunRetainBytes:
		_, _ = st.target.Runs().SetConfig(nil, nil, nil, &v)
	case SettingRunRemovePanes:
		st.mu.Lock()
		st.runs.SetRemovePanes(v == 1)
		st.mu.Unlock()
	case SettingSaveInterval:
		_ = st.target.Persistence().SetSaveInterval(time.Duration(v) * time.Millisecond)
	case SettingHistoryRows:
		_ = st.SetHistoryRows(n)
	}
}

// Load applies the settings file at path ("" for none; a missing file
// sets nothing), then env (setting name to value, from the daemon's
// environment), which overrides the file; path is where Set writes from
// now on. Call it before serving, after Persistence().Start. It returns
// what it ignored: lines that are not "name = value", unknown names,
// values that are not integers or out of range, a file that cannot be
// read. Env values must be checked already.
func (st *Settings) Load(path string, env map[string]int64) (problems []string) {
	var text map[string]string
	if path != "" {
		var err error
		text, problems, err = snapshot.ReadSettings(path)
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	file, bad := persist.ParseFile(text, checkSetting)
	problems = append(problems, bad...)
	for _, name := range slices.Sorted(maps.Keys(file)) {
		st.apply(name, file[name])
	}
	for name, v := range env {
		st.apply(name, v)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.book.Loaded(path, file, env)
	return problems
}

// Set changes settings (Server.SetConfig): every value is checked first,
// then the settings file is rewritten with them added to what it holds,
// then they apply (their origin becomes runtime). Errors:
// invalid_params.<field> (checkSetting), internal when the file cannot be
// written (data.path); either way nothing is changed.
func (st *Settings) Set(change map[string]int64) error {
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
	st.book.BeginChange()
	defer st.book.EndChange()
	st.mu.Lock()
	path, file := st.book.WithChange(change)
	st.mu.Unlock()
	if path != "" && len(change) > 0 {
		if err := snapshot.WriteSettings(path, persist.FileText(file)); err != nil {
			return newError(errcode.CodeInternal, map[string]any{"path": path}, "the settings were not changed: %v", err)
		}
	}
	// run.remove_panes first: records the new retention evicts follow it.
	for _, name := range append([]string{SettingRunRemovePanes}, SettingNames...) {
		if v, ok := change[name]; ok {
			st.apply(name, v)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.book.Changed(file, change)
	return nil
}

// Origins says where each setting's value came from, in SettingNames
// order.
func (st *Settings) Origins() []SettingOrigin {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.book.Origins()
}

// File is the settings file's path ("" when the daemon has none).
func (st *Settings) File() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.book.Path()
}
