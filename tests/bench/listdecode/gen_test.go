package listdecode

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	vl "github.com/varlink/go/varlink"
)

// TestWriteReply writes testdata/listpanes-1000.json.gz: the reply message
// (as sent, without its NUL) of Mux.ListPanes of all panes from the
// signalttyd in $LISTDECODE_SIGNALTTYD holding 1,000 idle `sleep infinity`
// panes of 80×24 in workspaces of 100, as the compare tool's scale
// workload makes them.
func TestWriteReply(t *testing.T) {
	bin := os.Getenv("LISTDECODE_SIGNALTTYD")
	if bin == "" {
		t.Skip("LISTDECODE_SIGNALTTYD=DIR (a directory holding signalttyd) writes the reply anew")
	}
	dir := t.TempDir()
	for _, d := range []string{"run", "state", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "run", "sock")
	cmd := exec.Command(filepath.Join(bin, "signalttyd"))
	// A small environment: the panes' records show none of it but their
	// paths, and nothing of the machine's own goes into testdata.
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"HOME=" + filepath.Join(dir, "home"), "SIGNALTTY_ADDRESS=unix:" + sock,
		"SIGNALTTY_LOGIND=0", "SIGNALTTY_NO_AUTOSTART=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	ctx := context.Background()
	var c *vl.Connection
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; {
		if c, err = vl.NewConnection(ctx, "unix:"+sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer c.Close()
	var ignored json.RawMessage
	for i := 0; i < 1000; i++ {
		ws := fmt.Sprint("s", i/100)
		if i%100 == 0 {
			if err := c.Call(ctx, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": ws}, &ignored); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Call(ctx, "dev.signaltty.Mux.SpawnPane", map[string]any{"workspace": ws, "argv": []string{"sleep", "infinity"}, "cols": 80, "rows": 24}, &ignored); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // every pane running, its pid known
	raw, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Write([]byte(`{"method":"dev.signaltty.Mux.ListPanes","parameters":{}}` + "\x00")); err != nil {
		t.Fatal(err)
	}
	msg, err := bufio.NewReaderSize(raw, 1<<20).ReadBytes(0)
	if err != nil {
		t.Fatal(err)
	}
	msg = msg[:len(msg)-1]
	var check struct {
		Parameters struct {
			Panes []json.RawMessage `json:"panes"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(msg, &check); err != nil || len(check.Parameters.Panes) != 1000 {
		t.Fatalf("reply of %d bytes, %d panes: %v", len(msg), len(check.Parameters.Panes), err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(msg)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", ReplyFile), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d bytes, %d gzipped", ReplyFile, len(msg), gz.Len())
}
