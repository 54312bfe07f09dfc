package runs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"slices"
)

// Params are a start's parameters after defaults, as the key's digest
// covers them (docs/run-wait.md, "Keys"). Source is not one of them.
type Params struct {
	Key, Axis, Workspace, Pane string
	Argv                       []string // nil: absent
	Shell, Name                *string
	Cwd                        string // "": absent; compared cleaned
	Env                        map[string]string
	EnvUnset                   []string // compared as a set
	Grants                     []string // "right:scope", compared as a set
	Cols, Rows                 *int     // nil: absent (a split takes its size from the tab)
	DeadlineMs                 *int64
	OutputRows, OutputBytes    int
}

// Digest is HMAC-SHA-256 under the table's secret key of the canonical
// JSON of p: empty cwd, env and env_unset equal absent ones.
func (t *Table) Digest(p Params) []byte {
	canon := map[string]any{"key": p.Key, "axis": p.Axis, "workspace": p.Workspace, "pane": p.Pane,
		"output_rows": p.OutputRows, "output_bytes": p.OutputBytes, "grants": set(p.Grants)}
	if p.Argv != nil {
		canon["argv"] = p.Argv
	}
	if p.Shell != nil {
		canon["shell"] = *p.Shell
	}
	if p.Name != nil {
		canon["name"] = *p.Name
	}
	if p.Cwd != "" {
		canon["cwd"] = filepath.Clean(p.Cwd)
	}
	if len(p.Env) > 0 {
		canon["env"] = p.Env
	}
	if len(p.EnvUnset) > 0 {
		canon["env_unset"] = set(p.EnvUnset)
	}
	if p.Cols != nil {
		canon["cols"] = *p.Cols
	}
	if p.Rows != nil {
		canon["rows"] = *p.Rows
	}
	if p.DeadlineMs != nil {
		canon["deadline_ms"] = *p.DeadlineMs
	}
	b, _ := json.Marshal(canon) // map keys are sorted: canonical
	m := hmac.New(sha256.New, t.hmacKey)
	m.Write(b)
	return m.Sum(nil)
}

// set is ss sorted without repeats, never nil.
func set(ss []string) []string {
	out := append([]string{}, ss...)
	slices.Sort(out)
	return slices.Compact(out)
}
