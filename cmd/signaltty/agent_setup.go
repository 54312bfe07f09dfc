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
	plugin  string        // the plugin's source (__SIGNALTTY_COMMAND__ is the command)
	// config, when set, is a second change the setup makes: a TOML file
	// and a key of one of its tables with its value.
	config *tomlSetting
	notes  []string // what the user must still know or do
}

// tomlSetting is one key = value of a table in a TOML file.
type tomlSetting struct {
	file         func() string
	table, key   string
	value, about string
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
	// $CODEX_HOME); hooks are on by default in Codex 0.171.
	"codex": {
		file:    func() string { return filepath.Join(configDir("CODEX_HOME", ".codex"), "hooks.json") },
		events:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "Interrupt", "SessionEnd"},
		timeout: 10,
		config: &tomlSetting{
			file:  func() string { return filepath.Join(configDir("CODEX_HOME", ".codex"), "config.toml") },
			table: "features", key: "daemon_auto_start", value: "false",
			about: "daemon_auto_start = false: otherwise the first codex starts one shared app-server that runs the hooks and MCP servers of every later codex, so every Codex pane would speak as the first one; without it each codex (and codex resume) runs its own, inside its pane",
		},
		notes: []string{
			"On its next start Codex shows \"Hooks need review\" for the new hooks: choose to trust them (or review them with /hooks); untrusted hooks do not run.",
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
hooks.json in ~/.codex or $CODEX_HOME, and daemon_auto_start = false in its
config.toml; gemini: settings.json in ~/.gemini or $GEMINI_CLI_HOME/.gemini),
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
				if hs.plugin != "" {
					fmt.Fprint(a.out, pluginSource(hs.plugin, command))
					fmt.Fprintf(errw, "# save as %s\n", file)
				} else {
					b, _ := json.MarshalIndent(map[string]any{"hooks": hookBlock(args[0], command, hs.events, hs.timeout)}, "", "  ")
					fmt.Fprintf(a.out, "%s\n", b)
					fmt.Fprintf(errw, "# merge into %s\n", file)
				}
				if t := hs.config; t != nil {
					fmt.Fprintf(errw, "# and in %s:\n# [%s]\n# %s = %s\n# (%s)\n", t.file(), t.table, t.key, t.value, t.about)
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
				changed, backup, err = mergeHooks(file, args[0], command, hs.events, hs.timeout)
			}
			if err != nil {
				return &callError{Code: "internal", Message: err.Error(), Data: map[string]any{"file": file}}
			}
			report(a, file, changed, backup)
			if t := hs.config; t != nil {
				f := t.file()
				changed, backup, err := setTOML(f, t.table, t.key, t.value)
				if err != nil {
					return &callError{Code: "internal", Message: err.Error(), Data: map[string]any{"file": f}}
				}
				report(a, f, changed, backup)
				fmt.Fprintf(a.out, "%s: %s\n", f, t.about)
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
func hookBlock(agent, command string, events []string, timeout int) map[string]any {
	out := map[string]any{}
	for _, ev := range events {
		out[ev] = []any{hookGroup(agent, command, ev, timeout)}
	}
	return out
}

func hookGroup(agent, command, event string, timeout int) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command + " hook " + agent + " " + event, "timeout": timeout}}}
}

// mergeHooks adds the hooks that are missing to file's "hooks" object,
// keeping everything else; the old file is copied to a timestamped backup
// first. It writes nothing when every hook is already there.
func mergeHooks(file, agent, command string, events []string, timeout int) (changed bool, backup string, err error) {
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
		hooks[ev] = append(groups, hookGroup(agent, command, ev, timeout))
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

// setTOML makes key = value hold in [table] of the TOML file, keeping
// every other line (comments included): a key already set to another
// value is changed in place, a missing key is added under the table's
// header (the table is appended when it is missing). A file that is not
// valid TOML, or whose table is written inline or dotted, is not touched.
func setTOML(file, table, key, value string) (changed bool, backup string, err error) {
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return false, "", err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(old), &doc); err != nil {
		return false, "", fmt.Errorf("%s is not valid TOML (%v); not touched", file, err)
	}
	if t, ok := doc[table].(map[string]any); ok && fmt.Sprint(t[key]) == value {
		return false, "", nil
	}
	lines := strings.Split(string(old), "\n")
	header := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(table) + `\s*\]\s*(#.*)?$`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	keyLine := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	at, done := -1, false // at: the line after the table's header
	for i, l := range lines {
		if header.MatchString(l) {
			at = i + 1
		} else if anyHeader.MatchString(l) && at >= 0 {
			break // the end of the table
		} else if at >= 0 && keyLine.MatchString(l) {
			lines[i], done = key+" = "+value, true
			break
		}
	}
	if at >= 0 && !done {
		lines = append(lines[:at], append([]string{key + " = " + value}, lines[at:]...)...)
		done = true
	}
	if !done {
		text := strings.TrimRight(string(old), "\n")
		if text != "" {
			text += "\n\n"
		}
		lines = []string{text + "[" + table + "]\n" + key + " = " + value}
	}
	out := strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
	var check map[string]any
	if _, err := toml.Decode(out, &check); err != nil {
		return false, "", fmt.Errorf("%s: cannot set [%s] %s here (%v); not touched", file, table, key, err)
	}
	if t, ok := check[table].(map[string]any); !ok || fmt.Sprint(t[key]) != value {
		return false, "", fmt.Errorf("%s: [%s] is written in a form this setup does not edit; add %s = %s yourself", file, table, key, value)
	}
	return writeFileKept(file, []byte(out), 0o600)
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
