package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
)

// agentSetup is how one agent is told to call `signaltty hook`
// (docs/agents.md, "Setting up the hooks"): hook settings in a JSON file
// (events), or a plugin or extension file of its own (plugin).
type agentSetup struct {
	file    func() string // the agent's own settings, plugin or extension file
	events  []string      // hook events to install (JSON settings)
	timeout int           // each hook's timeout, in the agent's unit
	// timeouts are the events whose hooks get another timeout.
	timeouts map[string]int
	plugin   string // the plugin's source (__SIGNALTTY_COMMAND__ is the command)
	// config, when set, is a second change the setup makes: keys of
	// tables of a TOML file.
	config *tomlSetting
	// trust, when set, is what config must also hold for the agent to run
	// the hooks of the hooks document doc (the content of hooksFile).
	trust func(hooksFile string, doc map[string]any, command string, events []string) []tomlEdit
	notes []string // what the user must still know or do
}

// timeoutOf is the timeout of event's hook.
func (hs agentSetup) timeoutOf(event string) int {
	if t, ok := hs.timeouts[event]; ok {
		return t
	}
	return hs.timeout
}

// tomlSetting is keys of tables in a TOML file, and why.
type tomlSetting struct {
	file  func() string
	edits []tomlEdit
	about string
}

//go:embed agentfiles/opencode.js
var opencodePlugin string

//go:embed agentfiles/pi.js
var piExtension string

var agentSetups = map[string]agentSetup{
	// Claude Code reads hooks from settings.json in its config directory
	// (~/.claude, or $CLAUDE_CONFIG_DIR); timeouts are in seconds.
	"claude": {
		file: func() string { return filepath.Join(configDir("CLAUDE_CONFIG_DIR", ".claude"), "settings.json") },
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
			"PostToolUseFailure", "Notification", "Stop", "StopFailure", "SessionEnd"},
		timeout: 10,
	},
	// Codex reads hooks.json next to config.toml (~/.codex, or
	// $CODEX_HOME); hooks are on by default in Codex 0.171, run only once
	// trusted, and Codex caps SessionEnd and Interrupt hooks at 3 seconds.
	"codex": {
		file:     func() string { return filepath.Join(configDir("CODEX_HOME", ".codex"), "hooks.json") },
		events:   []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "Interrupt", "SessionEnd"},
		timeout:  10,
		timeouts: map[string]int{"SessionEnd": 3, "Interrupt": 3},
		config: &tomlSetting{
			file:  func() string { return filepath.Join(configDir("CODEX_HOME", ".codex"), "config.toml") },
			edits: []tomlEdit{{table: []string{"features"}, key: "daemon_auto_start", value: "false"}},
			about: "daemon_auto_start = false: otherwise the first codex starts one shared app-server that runs the hooks and MCP servers of every later codex, so every Codex pane would speak as the first one; without it each codex (and codex resume) runs its own, inside its pane",
		},
		trust: codexTrust,
		notes: []string{
			"Codex runs a hook only once it is trusted (else it shows \"Hooks need review\" at start); the [hooks.state] trusted_hash entries above are what trusting them in /hooks records, so Codex runs these hooks without asking. A hook whose command or timeout changes is asked about again.",
		},
	},
	// Gemini CLI reads hooks from settings.json in ~/.gemini (or
	// $GEMINI_CLI_HOME/.gemini); timeouts are in milliseconds.
	"gemini": {
		file:    func() string { return filepath.Join(configDir("GEMINI_CLI_HOME", ""), ".gemini", "settings.json") },
		events:  []string{"SessionStart", "BeforeAgent", "BeforeModel", "AfterTool", "Notification", "AfterAgent", "SessionEnd"},
		timeout: 10000,
	},
	// opencode loads every .js file in plugin/ of its configuration
	// directory (~/.config/opencode, or $OPENCODE_CONFIG_DIR).
	"opencode": {
		file: func() string {
			if d := os.Getenv("OPENCODE_CONFIG_DIR"); d != "" {
				return filepath.Join(d, "plugin", "signaltty.js")
			}
			return filepath.Join(xdgConfigHome(), "opencode", "plugin", "signaltty.js")
		},
		plugin: opencodePlugin,
	},
	// pi loads every .js file in ~/.pi/agent/extensions (or
	// $PI_CODING_AGENT_DIR/extensions).
	"pi": {
		file: func() string {
			return filepath.Join(configDir("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")), "extensions", "signaltty.js")
		},
		plugin: piExtension,
	},
}

// setupAgents lists the agents agent setup knows, sorted.
func setupAgents() []string {
	out := make([]string, 0, len(agentSetups))
	for k := range agentSetups {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func configDir(env, dot string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, dot)
}

func xdgConfigHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config")
}

func agentCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "agent", Short: "Integrate coding agents with signaltty"}
	names := strings.Join(setupAgents(), "|")
	setup := &cobra.Command{
		Use:   "setup " + names + " [--write] [--file PATH] [--command PATH]",
		Short: "Print, or install into the agent's settings, what makes the agent call signaltty hook",
		Long: `Print the hook configuration (claude, codex, gemini) or the plugin
(opencode) or extension (pi) that makes the agent call "signaltty hook" on
each of its events, so its pane learns the session id (for "signaltty
resume" after a restart), lifecycle and attention. Standard output is
exactly the JSON or JavaScript to use; where it belongs is said on standard
error. With --write, install it: merge the hooks into the agent's settings
file (claude: settings.json in ~/.claude or $CLAUDE_CONFIG_DIR; codex:
hooks.json in ~/.codex or $CODEX_HOME, and in its config.toml
daemon_auto_start = false and the [hooks.state] trusted_hash entries that
trust these hooks, as trusting them in Codex's /hooks would; gemini: settings.json in ~/.gemini or $GEMINI_CLI_HOME/.gemini),
or write the plugin (opencode: plugin/signaltty.js in ~/.config/opencode or
$OPENCODE_CONFIG_DIR; pi: extensions/signaltty.js in ~/.pi/agent or
$PI_CODING_AGENT_DIR), keeping what is there and a backup copy of a file it
changes. Running it again changes nothing.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: setupAgents(),
		RunE: func(cmd *cobra.Command, args []string) error {
			hs, ok := agentSetups[args[0]]
			if !ok {
				return &callError{Code: "invalid_params.agent", Message: fmt.Sprintf("no setup for %q (%s)", args[0], strings.Join(setupAgents(), ", ")),
					Data: map[string]any{"param": "agent", "reason": "unknown_agent"}}
			}
			command, _ := cmd.Flags().GetString("command")
			file, _ := cmd.Flags().GetString("file")
			if file == "" {
				file = hs.file()
			}
			write, _ := cmd.Flags().GetBool("write")
			errw := cmd.ErrOrStderr()
			if !write {
				var doc map[string]any
				if hs.plugin != "" {
					fmt.Fprint(a.out, pluginSource(hs.plugin, command))
					fmt.Fprintf(errw, "# save as %s\n", file)
				} else {
					doc = map[string]any{"hooks": hookBlock(args[0], command, hs.events, hs.timeoutOf)}
					b, _ := json.MarshalIndent(doc, "", "  ")
					fmt.Fprintf(a.out, "%s\n", b)
					fmt.Fprintf(errw, "# merge into %s\n", file)
				}
				if t := hs.config; t != nil {
					fmt.Fprintf(errw, "# and in %s (%s):\n", t.file(), t.about)
					edits := t.edits
					if hs.trust != nil {
						edits = append(edits, hs.trust(file, jsonRoundTrip(doc), command, hs.events)...)
					}
					for _, e := range edits {
						fmt.Fprintf(errw, "# [%s]\n# %s = %s\n", tomlHeader(e.table), e.key, e.value)
					}
				}
				for _, n := range hs.notes {
					fmt.Fprintf(errw, "# %s\n", n)
				}
				return nil
			}
			var changed bool
			var backup string
			var err error
			if hs.plugin != "" {
				changed, backup, err = writeFileKept(file, []byte(pluginSource(hs.plugin, command)), 0o644)
			} else {
				changed, backup, err = mergeHooks(file, args[0], command, hs.events, hs.timeoutOf)
			}
			if err != nil {
				return &callError{Code: "internal", Message: err.Error(), Data: map[string]any{"file": file}}
			}
			report(a, file, changed, backup)
			if t := hs.config; t != nil {
				f := t.file()
				edits := t.edits
				if hs.trust != nil {
					var doc map[string]any
					if b, err := os.ReadFile(file); err == nil {
						_ = json.Unmarshal(b, &doc)
					}
					edits = append(edits, hs.trust(file, doc, command, hs.events)...)
				}
				changed, backup, err := setTOML(f, edits...)
				if err != nil {
					return &callError{Code: "internal", Message: err.Error(), Data: map[string]any{"file": f}}
				}
				report(a, f, changed, backup)
				fmt.Fprintf(a.out, "%s: %s\n", f, t.about)
				for _, e := range edits[len(t.edits):] {
					fmt.Fprintf(a.out, "%s: [%s] %s = %s\n", f, tomlHeader(e.table), e.key, e.value)
				}
			}
			for _, n := range hs.notes {
				fmt.Fprintln(a.out, n)
			}
			return nil
		},
	}
	setup.Flags().Bool("write", false, "install into the agent's own files (with a backup of a changed file)")
	setup.Flags().String("file", "", "the settings, plugin or extension file (default the agent's own)")
	setup.Flags().String("command", "signaltty", "how the hooks call signaltty (a name on PATH or an absolute path)")
	c.AddCommand(setup)
	return c
}

func report(a *app, file string, changed bool, backup string) {
	switch {
	case !changed:
		fmt.Fprintf(a.out, "%s already has it; unchanged\n", file)
	case backup != "":
		fmt.Fprintf(a.out, "updated %s (the old file is kept as %s)\n", file, backup)
	default:
		fmt.Fprintf(a.out, "wrote %s\n", file)
	}
}

// pluginSource is a plugin's source calling command.
func pluginSource(src, command string) string {
	q, _ := json.Marshal(command)
	return strings.ReplaceAll(src, "__SIGNALTTY_COMMAND__", string(q))
}

// hookBlock is the "hooks" object: every event runs `<command> hook <agent> <event>`.
func hookBlock(agent, command string, events []string, timeoutOf func(string) int) map[string]any {
	out := map[string]any{}
	for _, ev := range events {
		out[ev] = []any{hookGroup(agent, command, ev, timeoutOf(ev))}
	}
	return out
}

func hookGroup(agent, command, event string, timeout int) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command + " hook " + agent + " " + event, "timeout": timeout}}}
}

// mergeHooks adds the hooks that are missing to file's "hooks" object,
// keeping everything else; the old file is copied to a timestamped backup
// first. It writes nothing when every hook is already there.
func mergeHooks(file, agent, command string, events []string, timeoutOf func(string) int) (changed bool, backup string, err error) {
	doc := map[string]any{}
	old, err := os.ReadFile(file)
	switch {
	case err == nil:
		if len(old) > 0 {
			if err := json.Unmarshal(old, &doc); err != nil {
				return false, "", fmt.Errorf("%s is not a JSON object (%v); not touched", file, err)
			}
		}
	case !os.IsNotExist(err):
		return false, "", err
	}
	hooks, _ := doc["hooks"].(map[string]any)
	if hooks == nil {
		if _, there := doc["hooks"]; there {
			return false, "", fmt.Errorf("%s: \"hooks\" is not an object; not touched", file)
		}
		hooks = map[string]any{}
	}
	for _, ev := range events {
		want := command + " hook " + agent + " " + ev
		groups, _ := hooks[ev].([]any)
		if hasCommand(groups, want) {
			continue
		}
		hooks[ev] = append(groups, hookGroup(agent, command, ev, timeoutOf(ev)))
		changed = true
	}
	if !changed {
		return false, "", nil
	}
	doc["hooks"] = hooks
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, "", err
	}
	return writeFileKept(file, append(b, '\n'), 0o600)
}

// writeFileKept replaces file with content (atomically, keeping its mode;
// mode for a new file), after copying an existing different file to a
// timestamped backup. It writes nothing when file already holds content.
func writeFileKept(file string, content []byte, mode os.FileMode) (changed bool, backup string, err error) {
	old, err := os.ReadFile(file)
	switch {
	case err == nil:
		if string(old) == string(content) {
			return false, "", nil
		}
	case !os.IsNotExist(err):
		return false, "", err
	default:
		old = nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, "", err
	}
	if old != nil {
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
		backup = file + ".bak-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return false, "", fmt.Errorf("keeping a backup: %v", err)
		}
	}
	tmp := file + ".signaltty-tmp"
	if err := os.WriteFile(tmp, content, mode); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
}

// tomlEdit is one key = value (a TOML literal) of the table at path (its
// names unquoted: {"hooks", "state", "/a/hooks.json:stop:0:0"}).
type tomlEdit struct {
	table      []string
	key, value string
}

// tomlHeader is a table path as a TOML header's text: bare names where
// TOML allows them, basic strings (JSON escapes are TOML's) elsewhere.
func tomlHeader(path []string) string {
	bare := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	parts := make([]string, len(path))
	for i, p := range path {
		if bare.MatchString(p) {
			parts[i] = p
		} else {
			parts[i] = jsonString(p)
		}
	}
	return strings.Join(parts, ".")
}

// jsonString is s as a JSON string, without HTML escapes.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlTable is the table at path in a decoded document (nil when absent).
func tomlTable(doc map[string]any, path []string) map[string]any {
	t := doc
	for _, p := range path {
		next, _ := t[p].(map[string]any)
		if next == nil {
			return nil
		}
		t = next
	}
	return t
}

// setTOML makes each edit's key = value hold in its table of the TOML
// file, keeping every other line (comments included): a key already set
// to another value is changed in place, a missing key is added under the
// table's header (the table is appended when it is missing). A file that
// is not valid TOML, or whose table is written inline, dotted or quoted
// otherwise than tomlHeader writes it, is not touched. It writes the file
// once, with a backup, and not at all when every edit already holds.
func setTOML(file string, edits ...tomlEdit) (changed bool, backup string, err error) {
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return false, "", err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(old), &doc); err != nil {
		return false, "", fmt.Errorf("%s is not valid TOML (%v); not touched", file, err)
	}
	text := string(old)
	for _, e := range edits {
		if t := tomlTable(doc, e.table); t != nil && tomlLiteral(t[e.key]) == e.value {
			continue
		}
		text = setTOMLLine(text, e)
		changed = true
	}
	if !changed {
		return false, "", nil
	}
	out := strings.TrimRight(text, "\n") + "\n"
	var check map[string]any
	if _, err := toml.Decode(out, &check); err != nil {
		return false, "", fmt.Errorf("%s: cannot set these keys here (%v); not touched", file, err)
	}
	for _, e := range edits {
		if t := tomlTable(check, e.table); t == nil || tomlLiteral(t[e.key]) != e.value {
			return false, "", fmt.Errorf("%s: [%s] is written in a form this setup does not edit; add %s = %s yourself", file, tomlHeader(e.table), e.key, e.value)
		}
	}
	return writeFileKept(file, []byte(out), 0o600)
}

// tomlLiteral is a decoded value as setTOML's values are written: strings
// quoted, other values as Go prints them.
func tomlLiteral(v any) string {
	if s, ok := v.(string); ok {
		return jsonString(s)
	}
	return fmt.Sprint(v)
}

// setTOMLLine is text with e's key set in its table's section.
func setTOMLLine(text string, e tomlEdit) string {
	lines := strings.Split(text, "\n")
	header := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(tomlHeader(e.table)) + `\s*\]\s*(#.*)?$`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	keyLine := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(e.key) + `\s*=`)
	at := -1 // the line after the table's header
	for i, l := range lines {
		if header.MatchString(l) {
			at = i + 1
		} else if anyHeader.MatchString(l) && at >= 0 {
			break // the end of the table
		} else if at >= 0 && keyLine.MatchString(l) {
			lines[i] = e.key + " = " + e.value
			return strings.Join(lines, "\n")
		}
	}
	if at >= 0 {
		lines = append(lines[:at], append([]string{e.key + " = " + e.value}, lines[at:]...)...)
		return strings.Join(lines, "\n")
	}
	text = strings.TrimRight(text, "\n")
	if text != "" {
		text += "\n\n"
	}
	return text + "[" + tomlHeader(e.table) + "]\n" + e.key + " = " + e.value
}

func hasCommand(groups []any, command string) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			if hm, _ := h.(map[string]any); hm["command"] == command {
				return true
			}
		}
	}
	return false
}
