package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// tabViewer is the tab view program `signaltty attach --tab` runs
// (cmd/signaltty-attach): a program of its own, so that the terminal
// emulator and screen libraries it draws with are not part of every CLI
// call.
const tabViewer = "signaltty-attach"

// attachTab replaces this process with signaltty-attach showing tab ref
// (docs/attach.md, "Tab view"), passing on the address, --json and the
// checked options; the terminal, the environment and the process stay the
// user's. Not installed or not runnable: unavailable.attach_viewer.
func (a *app) attachTab(_ context.Context, ref string, o attachOptions) error {
	path, err := findProgram(tabViewer, "unavailable.attach_viewer", "the tab view program")
	if err != nil {
		return err
	}
	argv := []string{path}
	if a.address != "" {
		argv = append(argv, "--address", a.address)
	}
	if a.json {
		argv = append(argv, "--json")
	}
	if o.readOnly {
		argv = append(argv, "--read-only")
	}
	if o.mouse {
		argv = append(argv, "--mouse")
	}
	argv = append(argv, "--detach", strconv.Itoa(int(o.detach)), "--prefix", strconv.Itoa(int(o.prefix)),
		"--history", strconv.Itoa(int(o.history)))
	if ref != "" {
		argv = append(argv, "--", ref)
	}
	err = syscall.Exec(path, argv, os.Environ())
	return &callError{Code: "unavailable.attach_viewer", Message: fmt.Sprintf("cannot run %s: %v", path, err),
		Data: map[string]any{"path": path}}
}
