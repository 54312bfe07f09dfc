package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// writeAgentConfig warns about agent settings of this user that make one
// helper serve several panes (docs/agents.md, "Codex"): a Codex that calls
// signaltty (its hooks.json or an MCP server in config.toml) with
// daemon_auto_start on (Codex's default) runs one shared app-server for
// every codex, which calls signaltty for whichever pane started it.
func writeAgentConfig(w io.Writer) {
	dir := configDir("CODEX_HOME", ".codex")
	hooks, _ := os.ReadFile(filepath.Join(dir, "hooks.json"))
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	var doc struct {
		Features   map[string]any `toml:"features"`
		MCPServers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(cfg), &doc); err != nil {
		return // Codex itself says what is wrong with it
	}
	uses := strings.Contains(string(hooks), " hook codex ")
	for _, m := range doc.MCPServers {
		if strings.Contains(filepath.Base(m.Command), "signaltty") {
			uses = true
		}
	}
	if !uses || doc.Features["daemon_auto_start"] == false {
		return
	}
	fmt.Fprintln(w, "agents:")
	fmt.Fprintf(w, "  ! Codex (%s) calls signaltty with daemon_auto_start on: one shared codex app-server runs\n"+
		"    the hooks and MCP servers of every codex, so every Codex pane speaks as the first one;\n"+
		"    run: signaltty agent setup codex --write (it sets [features] daemon_auto_start = false)\n", dir)
}
