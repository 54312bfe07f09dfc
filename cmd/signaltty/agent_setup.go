package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// hookSetup is how one agent is told to call `signaltty hook` (docs/agents.md,
// "Setting up the hooks").
type hookSetup struct {
	file   func() string // the agent's own hook settings file
	events []string
	notes  []string // what the user must still do
}

var hookSetups = map[string]hookSetup{
	// Claude Code reads hooks from settings.json in its config directory
	// (~/.claude, or $CLAUDE_CONFIG_DIR).
	"claude": {
		file:   func() string { return filepath.Join(configDir("CLAUDE_CONFIG_DIR", ".claude"), "settings.json") },
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"},
	},
	// Codex reads hooks.json next to config.toml (~/.codex, or $CODEX_HOME).
	"codex": {
		file:   func() string { return filepath.Join(configDir("CODEX_HOME", ".codex"), "hooks.json") },
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"},
		notes: []string{
			"Codex runs hooks only with the feature on: add to config.toml\n  [features]\n  codex_hooks = true",
			"Codex runs a new hook only once it is trusted: review and trust the signaltty hooks in Codex (/hooks).",
		},
	},
}

func configDir(env, dot string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, dot)
}

func agentCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "agent", Short: "Integrate coding agents with signaltty"}
	setup := &cobra.Command{
		Use:   "setup claude|codex [--write] [--file PATH] [--command PATH]",
		Short: "Print, or merge into the agent's settings, the hooks that call signaltty hook",
		Long: `Print the hook configuration that makes the agent call "signaltty hook" on
each of its events, so its pane learns the session id (for "signaltty
resume" after a restart), lifecycle and attention. With --write, merge it
into the agent's own settings file (claude: settings.json in ~/.claude or
$CLAUDE_CONFIG_DIR; codex: hooks.json in ~/.codex or $CODEX_HOME), keeping
what is there and a backup copy of the old file. Running it again changes
nothing.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude", "codex"},
		RunE: func(cmd *cobra.Command, args []string) error {
			hs, ok := hookSetups[args[0]]
			if !ok {
				return &callError{Code: "invalid_params.agent", Message: fmt.Sprintf("no hook setup for %q (claude, codex)", args[0]),
					Data: map[string]any{"param": "agent", "reason": "unknown_agent"}}
			}
			command, _ := cmd.Flags().GetString("command")
			file, _ := cmd.Flags().GetString("file")
			if file == "" {
				file = hs.file()
			}
			write, _ := cmd.Flags().GetBool("write")
			if !write {
				b, _ := json.MarshalIndent(map[string]any{"hooks": hookBlock(args[0], command, hs.events)}, "", "  ")
				fmt.Fprintf(a.out, "# merge into %s\n%s\n", file, b)
				for _, n := range hs.notes {
					fmt.Fprintf(a.out, "# %s\n", n)
				}
				return nil
			}
			changed, backup, err := mergeHooks(file, args[0], command, hs.events)
			if err != nil {
				return &callError{Code: "internal", Message: err.Error(), Data: map[string]any{"file": file}}
			}
			switch {
			case !changed:
				fmt.Fprintf(a.out, "%s already calls signaltty hook; unchanged\n", file)
			case backup != "":
				fmt.Fprintf(a.out, "merged the signaltty hooks into %s (the old file is kept as %s)\n", file, backup)
			default:
				fmt.Fprintf(a.out, "wrote the signaltty hooks to %s\n", file)
			}
			for _, n := range hs.notes {
				fmt.Fprintln(a.out, n)
			}
			return nil
		},
	}
	setup.Flags().Bool("write", false, "merge into the agent's settings file (with a backup)")
	setup.Flags().String("file", "", "the settings file (default the agent's own)")
	setup.Flags().String("command", "signaltty", "how the hooks call signaltty (a name on PATH or an absolute path)")
	c.AddCommand(setup)
	return c
}

// hookBlock is the "hooks" object: every event runs `<command> hook <agent> <event>`.
func hookBlock(agent, command string, events []string) map[string]any {
	out := map[string]any{}
	for _, ev := range events {
		out[ev] = []any{hookGroup(agent, command, ev)}
	}
	return out
}

func hookGroup(agent, command, event string) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command + " hook " + agent + " " + event, "timeout": 10}}}
}

// mergeHooks adds the hooks that are missing to file's "hooks" object,
// keeping everything else; the old file is copied to a timestamped backup
// first. It writes nothing when every hook is already there.
func mergeHooks(file, agent, command string, events []string) (changed bool, backup string, err error) {
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
		hooks[ev] = append(groups, hookGroup(agent, command, ev))
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
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, "", err
	}
	mode := os.FileMode(0o600)
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
	if err := os.WriteFile(tmp, append(b, '\n'), mode); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
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
