package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// codexTrust is what trusts signaltty's hooks in the Codex hooks document
// doc (the content of hooksFile) — docs/agents.md, "Codex". Codex 0.171
// runs a hook of the user's hooks.json only when config.toml holds, for
// it, a table
//
//	[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// where <event> is the event's snake_case name, <group> and <handler> the
// 0-based positions of the matcher group in the event's list and of the
// handler in the group, and <hex> the SHA-256 of the compact JSON, keys
// sorted, of {"event_name": <event>, "hooks": [{"async", "command",
// "timeout" (seconds), "type": "command"}]} (the matcher too when the
// group has one). That is what trusting a hook in Codex's /hooks (or its
// "Hooks need review" screen) records. It covers only handlers running
// `command hook codex EVENT` for the events given, in groups without a
// matcher and with no keys beyond type, command, timeout and async; any
// other is left for the user to review.
func codexTrust(hooksFile string, doc map[string]any, command string, events []string) []tomlEdit {
	abs, err := filepath.Abs(hooksFile)
	if err != nil {
		return nil
	}
	hooks, _ := doc["hooks"].(map[string]any)
	var out []tomlEdit
	for _, ev := range events {
		want := command + " hook codex " + ev
		groups, _ := hooks[ev].([]any)
		for gi, g := range groups {
			gm, _ := g.(map[string]any)
			if _, has := gm["matcher"]; has {
				continue
			}
			hs, _ := gm["hooks"].([]any)
			for hi, h := range hs {
				hm, _ := h.(map[string]any)
				hash, ok := codexHookHash(ev, hm, want)
				if !ok {
					continue
				}
				key := fmt.Sprintf("%s:%s:%d:%d", abs, snakeCase(ev), gi, hi)
				out = append(out, tomlEdit{table: []string{"hooks", "state", key}, key: "trusted_hash", value: jsonString(hash)})
			}
		}
	}
	return out
}

// codexTimeoutCap is the most Codex 0.171 lets a hook of these events
// run, in seconds (a longer timeout is cut to it, and the cut value is
// the one it hashes).
var codexTimeoutCap = map[string]int{"SessionEnd": 3, "Interrupt": 3}

// codexHookHash is Codex's trust hash of handler h of event ev, when h is
// a plain command handler running want.
func codexHookHash(ev string, h map[string]any, want string) (string, bool) {
	for k := range h {
		if k != "type" && k != "command" && k != "timeout" && k != "async" {
			return "", false
		}
	}
	if h["type"] != "command" || h["command"] != want {
		return "", false
	}
	timeout := 600 // Codex's default, in seconds
	if v, has := h["timeout"]; has {
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) {
			return "", false
		}
		timeout = max(int(f), 1)
	}
	if c, ok := codexTimeoutCap[ev]; ok {
		timeout = min(timeout, c)
	}
	async := false
	if v, has := h["async"]; has {
		b, ok := v.(bool)
		if !ok {
			return "", false
		}
		async = b
	}
	identity := map[string]any{"event_name": snakeCase(ev), "hooks": []any{map[string]any{
		"type": "command", "command": want, "timeout": timeout, "async": async}}}
	var b strings.Builder
	enc := json.NewEncoder(&b) // maps marshal with sorted keys
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", false
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(strings.TrimSuffix(b.String(), "\n")))), true
}

// snakeCase is an event name as Codex's keys spell it: PreToolUse →
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jsonRoundTrip is v as encoding/json decodes it (numbers float64).
func jsonRoundTrip(v any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
