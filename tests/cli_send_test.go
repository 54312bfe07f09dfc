package tests

// pane send beyond --text: standard input, files and named keys.

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// 900 KiB of arbitrary bytes (more than a command line may carry) sent
// with --stdin reach the program byte for byte; so does a file with --file.
func TestSendStdinAndFileArriveByteForByte(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "send-stdin")
	dir := harness.TempDir(t)
	data := make([]byte, 900<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.UintN(256))
	}
	for _, how := range []string{"stdin", "file"} {
		out := filepath.Join(dir, how+".out")
		// Raw mode: the terminal passes every byte through unchanged.
		p := d.Spawn(t, ws(w), "sh", "-c", `stty raw -echo -iexten; echo ready; head -c `+strconv.Itoa(len(data))+` > "$0"; echo received; exec sleep 100`, out)
		d.WaitLine(t, p.ID, "ready")
		var r harness.Result
		if how == "stdin" {
			r = d.CLIInput(t, data, "pane", "send", "--pane", p.ID, "--stdin")
		} else {
			in := filepath.Join(dir, "input")
			if err := os.WriteFile(in, data, 0o600); err != nil {
				t.Fatal(err)
			}
			r = d.CLI(t, "pane", "send", "--pane", p.ID, "--file", in)
		}
		if r.Code != 0 {
			t.Fatalf("send --%s: %s", how, r)
		}
		d.WaitCapture(t, p.ID, "the program received everything", func(c harness.Capture) bool { return c.Contains("received") })
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("--%s: the program got %d bytes, differing from the %d sent", how, len(got), len(data))
		}
	}
	// More than the daemon's 1 MiB is refused whole.
	big := bytes.Repeat([]byte("x"), 1<<20+1)
	p := d.Spawn(t, ws(w), "sleep", "100")
	harness.CheckFail(t, d.CLIInput(t, big, "--json", "pane", "send", "--pane", p.ID, "--stdin"), "invalid_params.size", exitInvalid)
}

// Keys named as tmux names them reach the program as a terminal sends them.
func TestSendNamedKeys(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "send-keys")
	p := d.Spawn(t, ws(w), "sh", "-c", `stty -icanon -echo -isig; echo ready; exec cat -v`)
	d.WaitLine(t, p.ID, "ready")
	r := d.CLI(t, "pane", "send", "--pane", p.ID, "--key", "Up", "--key", "F1", "--key", "C-a", "--key", "M-x",
		"--key", "C-c", "--key", "S-Up", "--key", "F5", "--key", "Escape", "--key", "Tab", "--key", "Space", "--key", "BSpace", "--key", "Enter")
	if r.Code != 0 {
		t.Fatalf("send --key: %s", r)
	}
	// cat -v shows controls as ^X; the tab moves from column 30 to 32.
	d.WaitLine(t, p.ID, `^[[A^[OP^A^[x^C^[[1;2A^[[15~^[`+"   ^?")
	d.Fail(t, "invalid_params.key_name", exitInvalid, "pane", "send", "--pane", p.ID, "--key", "Bogus")
	d.Fail(t, "invalid_params.input", exitInvalid, "pane", "send", "--pane", p.ID, "--key", "Up", "--text", "x")
}
