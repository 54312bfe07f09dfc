package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// AgentsBin is the directory of the real coding agents' commands that
// tests/harness/get-agents.sh installs ($SIGNALTTY_TEST_TOOLS/agents/bin,
// default ~/.cache/signaltty-tests/agents/bin). It skips the test, naming
// what is missing, when command is not there.
func AgentsBin(t testing.TB, command string) string {
	t.Helper()
	dir := AgentsFile(t, "bin")
	if _, err := os.Stat(filepath.Join(dir, command)); err != nil {
		t.Skipf("the real %s is not installed in %s (run: bash tests/harness/get-agents.sh)", command, dir)
	}
	return dir
}

// AgentsFile is name in the directory get-agents.sh installs into
// ($SIGNALTTY_TEST_TOOLS/agents): "bin", or "opencode-config" (opencode's
// configuration directory with its own dependency installed). It skips
// the test when name is not there.
func AgentsFile(t testing.TB, name string) string {
	t.Helper()
	tools := os.Getenv("SIGNALTTY_TEST_TOOLS")
	if tools == "" {
		home, _ := os.UserHomeDir()
		tools = filepath.Join(home, ".cache", "signaltty-tests")
	}
	p := filepath.Join(tools, "agents", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (run: bash tests/harness/get-agents.sh)", p)
	}
	return p
}
