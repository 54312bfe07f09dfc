package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func origins(s *Service) map[string]string {
	out := map[string]string{}
	for _, o := range s.Settings().Origins() {
		out[o.Name] = o.Origin
	}
	return out
}

// The file applies, the environment overrides it, bad lines are reported
// and skipped; a SetConfig whose file cannot be written changes nothing.
func TestSettingsFileEnvironmentAndFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "signaltty", "settings.conf")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	text := "history_rows = 4000\nrun.retain_count = 9\nrun.remove_panes = true\nrun.max_active = 0\nbogus = 1\nsave_interval_ms = soon\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t)
	problems := s.Settings().Load(path, map[string]int64{SettingHistoryRows: 300})
	if len(problems) != 3 {
		t.Errorf("problems %q, want run.max_active, bogus and save_interval_ms", problems)
	}
	o := origins(s)
	if s.Settings().HistoryRows() != 300 || o[SettingHistoryRows] != OriginEnvironment || s.Runs().Config().RetainCount != 9 ||
		o[SettingRunRetainCount] != OriginFile || !s.Runs().Config().RemovePanes || o[SettingRunMaxActive] != OriginDefault {
		t.Fatalf("after loading: history_rows %d, run %+v, origins %v", s.Settings().HistoryRows(), s.Runs().Config(), o)
	}

	if err := s.Settings().Set(map[string]int64{SettingRunMaxActive: 5000}); code(err) != "invalid_params.max_active" {
		t.Fatalf("out of range: %v", err)
	}
	if err := s.Settings().Set(map[string]int64{SettingRunMaxActive: 8}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "run.max_active = 8\n") || !strings.Contains(string(b), "run.remove_panes = true\n") ||
		strings.Contains(string(b), "history_rows = 300") {
		t.Fatalf("file after Settings.Set (the environment's value must not be written):\n%s", b)
	}
	if o := origins(s); o[SettingRunMaxActive] != OriginRuntime {
		t.Errorf("origin after Settings.Set: %v", o)
	}

	// The file's directory replaced by a file: the write fails.
	dir := filepath.Dir(path)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Settings().Set(map[string]int64{SettingRunMaxActive: 16}); code(err) != "internal" {
		t.Fatalf("a settings file that cannot be written: %v, want internal", err)
	}
	if s.Runs().Config().MaxActive != 8 {
		t.Errorf("a failed Settings.Set changed max_active to %d", s.Runs().Config().MaxActive)
	}
}
