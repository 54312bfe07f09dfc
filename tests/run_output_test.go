package tests

// A completed run's output tail: which rows it keeps within its row and
// byte bounds, when it is complete, how it continues in the pane's rows,
// and the size limit of the reply carrying it (docs/run-wait.md; row
// numbers as in docs/rows.md).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

// seq 1 100000 with the default limits: the output holds the last 100
// non-blank rows, complete is false, oldest > 0; CaptureRows --end <start>
// returns the rows before; the reply stays within the limits.
// (The pane's scrollback is the daemon's default, 10000 rows; the case
// needs only that the history is shorter than the output.)
func TestRunOutputTailOfLongOutput(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "long-output").ID
	sts := d.StartBoth(t, harness.ArgvSpec("seq", ws, "seq", "1", "100000"))
	var recs []harness.RunRecord
	for _, st := range sts {
		rec := d.WaitBoth(t, st.Run)
		harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
		recs = append(recs, rec)
		out := rec.MustOutput(t)
		lines := out.Lines
		if len(lines) != 100 {
			t.Fatalf("%d lines, want the last 100: %+v", len(lines), out)
		}
		for i, l := range harness.TrimLines(lines) {
			if want := strconv.Itoa(99901 + i); l != want {
				t.Fatalf("line %d is %q, want %q", i, l, want)
			}
		}
		for _, l := range lines {
			if len(l) != 80 {
				t.Fatalf("line %q is not padded to the 80 columns", l)
			}
		}
		start, end, oldest, epoch := out.Start, out.End, out.Oldest, out.Epoch
		if out.Complete != false || oldest <= 0 || end-start != 100 || start < oldest {
			t.Errorf("output bounds: complete %v oldest %d start %d end %d; want complete false, 0 < oldest <= start = end-100", out.Complete, oldest, start, end)
		}
		// seq wrote 588895 bytes (the PTY adds a CR per line).
		if off := out.Offset; off < 588895 {
			t.Errorf("output offset %d, want the bytes the pane produced (at least the 588895 seq wrote)", off)
		}
		if b, _ := json.Marshal(map[string]any{"record": rec}); len(b) >= 1<<20 {
			t.Errorf("the record is %d bytes, over the 1 MiB reply limit", len(b))
		}
		// The rows before start, through both transports.
		var caps []harness.Capture
		for _, tr := range harness.Both(d) {
			r := tr.Call(t, "dev.signaltty.Mux.CaptureRows", map[string]any{"pane": st.Pane, "end": start, "epoch": epoch},
				"pane", "capture", "--pane", st.Pane, "--end", strconv.Itoa(start), "--epoch", strconv.Itoa(epoch))
			if r.Err != nil {
				t.Fatalf("capture --end %d via %s: %s", start, tr.Name, r)
			}
			var c harness.Capture
			r.Decode(t, &c)
			caps = append(caps, c)
		}
		harness.SameJSON(t, "CaptureRows via the CLI and via varlinkctl", caps[0], caps[1])
		c := caps[0]
		if n := len(c.Lines); n == 0 || int(c.First)+n != start || int(c.First) < oldest {
			t.Fatalf("capture --end %d: first %d, %d lines; want rows ending at %d, from %d on", start, c.First, n, start, oldest)
		}
		for i, l := range c.Trimmed() {
			if want := strconv.Itoa(99901 - len(c.Lines) + i); l != want {
				t.Fatalf("captured row %d is %q, want %q", int(c.First)+i, l, want)
			}
		}
	}
	harness.SameRecords(t, "records via the CLI and via varlinkctl", recs...)
	// The oldest rows kept continue the numbering.
	oldest := recs[0].MustOutput(t).Oldest
	var c harness.Capture
	d.JSON(t, &c, "pane", "capture", "--pane", sts[0].Pane, "--start", strconv.Itoa(oldest), "--end", strconv.Itoa(oldest+3))
	if tr := c.Trimmed(); len(tr) != 3 || tr[0] != strconv.Itoa(oldest+1) {
		t.Errorf("rows [%d, %d): %q, want %d…", oldest, oldest+3, tr, oldest+1)
	}
}

// Rows of 3-byte characters: --output-bytes of 2.5 rows keeps exactly 2
// lines (whole rows only), --output-rows 0 none; trailing blank rows are
// not output; complete only when every row is.
func TestRunOutputBounds(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "output-bounds").ID
	row := strings.Repeat("€", 10) // 10 cells, 30 bytes
	text := `for i in 1 2 3 4 5; do printf '%s\n' '` + row + `'; done; printf '\n\n\n'`
	base := harness.RunSpec{Workspace: ws, Shell: harness.Ptr(text), Cols: harness.Ptr(10), Rows: harness.Ptr(12)}
	for _, c := range []struct {
		name        string
		rows, bytes *int
		want        int
	}{
		{"output-bytes 2.5 rows", nil, harness.Ptr(75), 2},
		{"output-rows 0", harness.Ptr(0), nil, 0},
		{"output-bytes 0", nil, harness.Ptr(0), 0},
		{"defaults", nil, nil, 5},
		{"output-rows 3", harness.Ptr(3), nil, 3},
		{"output-bytes 3 rows", nil, harness.Ptr(90), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := base
			spec.Key, spec.OutputRows, spec.OutputBytes = "euro-"+strings.ReplaceAll(c.name, " ", "-"), c.rows, c.bytes
			rec := d.RunBoth(t, spec)
			harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
			out := rec.MustOutput(t)
			lines := out.Lines
			start, end := out.Start, out.End
			if end != 5 {
				t.Errorf("end %d, want 5: the blank rows below the last non-blank one are not output", end)
			}
			if len(lines) != c.want || end-start != c.want {
				t.Errorf("%d lines, start %d end %d; want %d lines ending at row 5", len(lines), start, end, c.want)
			}
			for _, l := range lines {
				if l != row {
					t.Errorf("line %q, want %q (whole rows only)", l, row)
				}
			}
			if off := out.Offset; off < 5*31 {
				t.Errorf("output offset %d, want the bytes the pane produced (at least 5 rows of 30 bytes and a newline)", off)
			}
			if complete := c.want == 5; out.Complete != complete {
				t.Errorf("complete %v, want %v", out.Complete, complete)
			}
		})
	}
}

// The reply limit. signaltty has no negotiated frame: every reply may be
// 1 MiB. A record at the output ceiling (256 KiB of line text) must fit it
// whatever its characters (with escaping of " and \ at most 512 KiB). A
// reply over the limit fails unsupported.result_size with data.bytes, is
// never truncated, and --output=false succeeds.
func TestRunRecordReplySizeLimit(t *testing.T) {
	t.Parallel()
	harness.Varlinkctl(t)
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "reply-size").ID
	dir := harness.TempDir(t)
	const cols = 263 // 1000 rows of 263 bytes exceed 262144: the byte limit decides
	// writeRows makes a file of 1100 rows of cols characters cycling through chars.
	writeRows := func(name, chars string) string {
		var b strings.Builder
		for i := 0; i < 1100; i++ {
			for j := 0; j < cols; j++ {
				b.WriteByte(chars[(i+j)%len(chars)])
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ceiling := func(key, file string) harness.RunSpec {
		return harness.RunSpec{Key: key, Workspace: ws, Argv: []string{"cat", file}, Cols: harness.Ptr(cols), Rows: harness.Ptr(24),
			OutputRows: harness.Ptr(1000), OutputBytes: harness.Ptr(262144)}
	}
	// checkTail requires a complete tail at the byte ceiling, equal to the pane's rows.
	checkTail := func(t *testing.T, rec harness.RunRecord, pane string) {
		t.Helper()
		out := rec.MustOutput(t)
		lines := out.Lines
		n := 0
		for _, l := range lines {
			n += len(l)
		}
		if want := 262144 / cols; len(lines) != want || n > 262144 {
			t.Errorf("%d lines of %d bytes, want %d whole rows within 262144 bytes", len(lines), n, want)
		}
		var c harness.Capture
		d.JSON(t, &c, "pane", "capture", "--pane", pane, "--start", strconv.Itoa(out.Start), "--end", strconv.Itoa(out.End))
		harness.SameJSON(t, "the output lines and the pane's rows", lines, c.Lines)
	}

	t.Run("escaped characters fit", func(t *testing.T) {
		file := writeRows("quotes", `"\"\a`)
		for _, st := range d.StartBoth(t, ceiling("quotes", file)) {
			rec := d.WaitBoth(t, st.Run)
			harness.WantOutcome(t, rec, "succeeded", harness.Ptr(0), "", "", 0)
			checkTail(t, rec, st.Pane)
		}
	})

	// '<', '>' and '&' need no escaping in JSON: such a record is about
	// 260 KiB of JSON and must fit the 1 MiB limit.
	html := writeRows("html", "<&>")
	htmlRuns := d.StartBoth(t, ceiling("html", html))
	t.Run("characters needing no escape fit", func(t *testing.T) {
		for _, st := range htmlRuns {
			for _, tr := range harness.Both(d) {
				r := tr.Wait(t, st.Run, nil, nil)
				if r.Err != nil {
					t.Errorf("wait %s via %s: a record of 262144 bytes of <&> does not fit the 1 MiB reply limit: %s", st.Run, tr.Name, r)
					continue
				}
				checkTail(t, r.Record(t), st.Pane)
			}
		}
	})

	t.Run("over the limit", func(t *testing.T) {
		// Whatever the record, a reply is complete or fails
		// unsupported.result_size (exit 10) with data.bytes over the limit,
		// identically through both transports; without output it succeeds.
		for _, st := range htmlRuns {
			for _, verb := range []string{"get", "wait"} {
				var rs []harness.Reply
				for _, tr := range harness.Both(d) {
					var r harness.Reply
					if verb == "get" {
						r = tr.Get(t, st.Run, nil)
					} else {
						r = tr.Wait(t, st.Run, nil, nil)
					}
					rs = append(rs, r)
				}
				if rs[0].Err == nil && rs[1].Err == nil {
					continue // it fitted
				}
				for _, r := range rs {
					harness.WantError(t, r, "unsupported.result_size", nil)
					if r.Err != nil {
						if b, _ := r.Err.Data["bytes"].(float64); b <= 1<<20 {
							t.Errorf("unsupported.result_size with bytes %v, want the reply's size over 1 MiB", r.Err.Data["bytes"])
						}
					}
				}
				harness.SameErrors(t, "unsupported.result_size of "+verb, rs...)
				for _, tr := range harness.Both(d) {
					var r harness.Reply
					if verb == "get" {
						r = tr.Get(t, st.Run, harness.Ptr(false))
					} else {
						r = tr.Wait(t, st.Run, nil, harness.Ptr(false))
					}
					if r.Err != nil {
						t.Errorf("%s --output=false via %s: %s", verb, tr.Name, r)
					} else if r.Record(t).Has("output") {
						t.Errorf("%s --output=false returned output", verb)
					}
				}
			}
		}
	})

	t.Run("negotiated frame of 4096 bytes", func(t *testing.T) {
		t.Skip("waits for a per-connection reply size limit (max_frame negotiation): today every reply may be 1 MiB")
	})
}
