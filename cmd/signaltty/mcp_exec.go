package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	"github.com/signaltty/signaltty/service/request"
	"github.com/spf13/cobra"
)

// mcpServer is the MCP server program `signaltty mcp` runs (cmd/signaltty-mcp):
// a program of its own, so that the MCP SDK is not part of every CLI call.
const mcpServer = "signaltty-mcp"

// libexecdir is where the build installs signaltty-mcp (meson sets it with
// -ldflags -X main.libexecdir=...; empty: not searched).
var libexecdir = ""

// mcpCmd replaces this process with signaltty-mcp (docs/mcp.md, "The
// server program"), passing --address and its own flags on; standard
// input and output, the environment and the process stay the agent's.
func mcpCmd(a *app) *cobra.Command {
	var waitCap int64
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the daemon's runs, panes and workspaces as MCP tools over stdio",
		Long: `Run a Model Context Protocol server on standard input and output. Each tool
makes the varlink call of the signaltty command of the same name (run,
run_wait, pane_capture, ...) and returns exactly the record that command
prints with --json, as structured content and as JSON text; a failure is a
tool error whose text is the --json error line {"error":{code,message,data}}.
run_wait waits at most ` + strconv.Itoa(request.MCPWaitCapMs) + ` ms per call (MCP clients' call limits).
Register it with an agent: claude mcp add -s user signaltty -- signaltty mcp.
The server is the program signaltty-mcp, found next to signaltty, in the
install's libexec directory or in $PATH.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := findMCPServer()
			if err != nil {
				return err
			}
			argv := []string{path}
			if a.address != "" {
				argv = append(argv, "--address", a.address)
			}
			if cmd.Flags().Changed("wait-cap-ms") {
				argv = append(argv, "--wait-cap-ms", strconv.FormatInt(waitCap, 10))
			}
			err = syscall.Exec(path, argv, os.Environ())
			return &callError{Code: "unavailable.mcp_server", Message: fmt.Sprintf("cannot run %s: %v", path, err),
				Data: map[string]any{"path": path}}
		},
	}
	// A lower run_wait cap suits a client with a shorter call limit; it
	// cannot be raised.
	c.Flags().Int64Var(&waitCap, "wait-cap-ms", request.MCPWaitCapMs, "longest run_wait and pane_wait of one call, in ms (at most "+strconv.Itoa(request.MaxMCPWaitCapMs)+"; docs/mcp.md)")
	return c
}

// findMCPServer is signaltty-mcp next to this program, else in libexecdir,
// else in $PATH; not found is unavailable.mcp_server.
func findMCPServer() (string, error) {
	return findProgram(mcpServer, "unavailable.mcp_server", "the MCP server program")
}

// findProgram is the program name (one of the CLI's own, installed in
// libexecdir) next to this program, else in libexecdir, else in $PATH; not
// found is the error code, its message naming the program as what.
func findProgram(name, code, what string) (string, error) {
	var dirs []string
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	if libexecdir != "" {
		dirs = append(dirs, libexecdir)
	}
	for _, dir := range dirs {
		if p := filepath.Join(dir, name); daemon.IsExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return filepath.Abs(p)
	}
	searched := append(dirs, "$PATH")
	return "", &callError{Code: code,
		Message: fmt.Sprintf("%s, %s, is not installed (looked in %s)", name, what, strings.Join(searched, ", ")),
		Data:    map[string]any{"searched": searched}}
}
