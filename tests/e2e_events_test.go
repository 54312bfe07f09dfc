package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
)

// cliStream is `signaltty events --follow --json` running as a subprocess.
type cliStream struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	done  chan struct{}
	err   error
}

func followCLI(t *testing.T, d *harness.Daemon, flags ...string) *cliStream {
	t.Helper()
	cmd := exec.Command(harness.Bin(t, "signaltty"), append([]string{"--json", "events", "--follow"}, flags...)...)
	cmd.Env = d.ClientEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &cliStream{cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
		io.Copy(io.Discard, out)
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("signaltty events --follow stderr: %s", stderr.String())
		}
	})
	// Wait for the ready reply: from then on every event is delivered.
	harness.Eventually(t, harness.PollTimeout, "signaltty events --follow prints its ready reply", func() (bool, string) {
		ls := s.Lines()
		return len(ls) > 0, strings.Join(ls, "\n")
	})
	var ready harness.SubscribeReply
	if err := json.Unmarshal([]byte(s.Lines()[0]), &ready); err != nil || !ready.Ready {
		t.Fatalf("first line of events --follow --json is not the ready reply: %q (%v)", s.Lines()[0], err)
	}
	return s
}

func (s *cliStream) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.lines...)
}

// Events returns the events printed so far (after the ready line).
func (s *cliStream) Events(t *testing.T) []harness.Event {
	t.Helper()
	var out []harness.Event
	for i, l := range s.Lines() {
		if i == 0 {
			continue
		}
		var r harness.SubscribeReply
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Ready || len(r.Event) == 0 {
			t.Fatalf("events --follow --json line %d is not an event reply: %q", i, l)
		}
		var e harness.Event
		if err := json.Unmarshal(r.Event, &e); err != nil {
			t.Fatal(err)
		}
		e.Raw = r.Event
		out = append(out, e)
	}
	return out
}

// stop interrupts the CLI like Ctrl-C; it must exit 0.
func (s *cliStream) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(harness.PollTimeout):
		t.Fatalf("signaltty events --follow did not exit on SIGINT")
	}
	if s.err != nil {
		t.Errorf("signaltty events --follow ended with %v after SIGINT, want exit status 0", s.err)
	}
}

// checkSeq requires events to be in seq order, without gaps, after ready.
func checkSeq(t *testing.T, ready harness.SubscribeReply, es []harness.Event) {
	t.Helper()
	for i, e := range es {
		if want := ready.Seq + int64(i) + 1; e.Seq != want {
			t.Errorf("event %d has seq %d, want %d (ready seq %d):\n%s", i, e.Seq, want, ready.Seq, harness.DumpEvents(es))
			return
		}
		if e.Source != ready.Source || !strings.HasPrefix(e.Source, "signaltty/") {
			t.Errorf("event source %q, want the ready reply's %q", e.Source, ready.Source)
		}
		if _, err := time.Parse(time.RFC3339Nano, e.Ts); err != nil || !strings.HasSuffix(e.Ts, "Z") || len(e.Ts) != len("2006-01-02T15:04:05.000Z") {
			t.Errorf("event ts %q is not RFC 3339 UTC with milliseconds", e.Ts)
		}
		if e.Data == nil {
			t.Errorf("event without a data object: %s", e.Raw)
		}
	}
}

// want is an expected event: type and resource.
type want struct{ typ, resource string }

// checkSubsequence requires wants to appear in es in this order.
func checkSubsequence(t *testing.T, es []harness.Event, wants []want) {
	t.Helper()
	i, bad := 0, false
	for _, w := range wants {
		j := i
		for j < len(es) && (es[j].Type != w.typ || es[j].Resource != w.resource) {
			j++
		}
		if j == len(es) {
			t.Errorf("missing or out of order: %s %s", w.typ, w.resource)
			bad = true
			continue
		}
		i = j + 1
	}
	if bad {
		t.Errorf("events received:\n%s", harness.DumpEvents(es))
	}
}

// A lifecycle's events, through a raw subscription and the CLI's stream.
func TestEventsLifecycle(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := d.Subscribe(t, nil, nil)
	cli := followCLI(t, d)
	if s.Ready.Source != d.Status(t).Source {
		t.Errorf("ready source %q is not the daemon's", s.Ready.Source)
	}

	w := d.CreateWorkspace(t, "events")
	p := sleeper(t, d, w)
	k := d.Kill(t, p.ID)
	if r := d.CLI(t, "pane", "remove", "--pane", p.ID); r.Code != 0 {
		t.Fatal(r)
	}
	if r := d.CLI(t, "workspace", "remove", "--workspace", w.ID); r.Code != 0 {
		t.Fatal(r)
	}
	s.WaitFor(t, harness.PollTimeout, "workspace.removed", func(e harness.Event) bool { return e.Type == "workspace.removed" })
	es := s.Seen()
	checkSeq(t, s.Ready, es)
	checkSubsequence(t, es, []want{
		{"workspace.created", w.ID}, {"tab.created", p.Tab}, {"pane.created", p.ID}, {"tab.layout_changed", p.Tab},
		{"pane.terminating", p.ID}, {"pane.exited", p.ID}, {"pane.removed", p.ID}, {"tab.removed", p.Tab}, {"workspace.removed", w.ID},
	})
	for _, e := range es {
		switch e.Type {
		case "workspace.created":
			if e.Data["name"] != "events" {
				t.Errorf("workspace.created data: %s", e.Raw)
			}
		case "pane.created":
			if e.Data["workspace"] != w.ID || e.Data["tab"] != p.Tab || e.Data["argv0"] != "sleep" {
				t.Errorf("pane.created data: %s, want workspace %s tab %s argv0 sleep", e.Raw, w.ID, p.Tab)
			}
		case "pane.terminating":
			if e.Data["signal"] != "SIGHUP" {
				t.Errorf("pane.terminating when killing: %s, want data.signal SIGHUP", e.Raw)
			}
		case "pane.exited":
			st, _ := e.Data["status"].(map[string]any)
			if st == nil || st["signal"] != k.Signal() || k.Signal() != "SIGHUP" {
				t.Errorf("pane.exited data: %s, want status.signal SIGHUP", e.Raw)
			}
		}
	}
	if st := d.Status(t); st.Seq != es[len(es)-1].Seq {
		t.Errorf("status seq %d, last event seq %d", st.Seq, es[len(es)-1].Seq)
	}

	// The CLI printed the same events.
	harness.Eventually(t, harness.PollTimeout, "the CLI printed every event", func() (bool, string) {
		return len(cli.Lines()) > len(es), strings.Join(cli.Lines(), "\n")
	})
	ce := cli.Events(t)
	for i := range es {
		if ce[i].Seq != es[i].Seq || ce[i].Type != es[i].Type || ce[i].Resource != es[i].Resource {
			t.Errorf("CLI event %d: %d %s %s, raw subscription: %d %s %s", i, ce[i].Seq, ce[i].Type, ce[i].Resource, es[i].Seq, es[i].Type, es[i].Resource)
		}
	}
	cli.stop(t)

	// Without "more", the single reply is the ready reply with the current seq.
	var one harness.SubscribeReply
	d.JSON(t, &one, "events")
	if !one.Ready || one.Seq != es[len(es)-1].Seq || len(one.Event) != 0 && string(one.Event) != "null" {
		t.Errorf("events without --follow: %+v, want ready at seq %d", one, es[len(es)-1].Seq)
	}
}

// Filters by type prefix and by resource.
func TestEventsFilters(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	w := d.CreateWorkspace(t, "filters")
	a := sleeper(t, d, w)
	b := sleeper(t, d, w)

	all := d.Subscribe(t, nil, nil)
	filters := []struct {
		types, resources []string
		match            func(harness.Event) bool
	}{
		{[]string{"pane"}, nil, func(e harness.Event) bool { return strings.HasPrefix(e.Type, "pane.") }},
		{[]string{"pane.exited"}, nil, func(e harness.Event) bool { return e.Type == "pane.exited" }},
		{[]string{"tab.removed", "workspace"}, nil, func(e harness.Event) bool {
			return e.Type == "tab.removed" || strings.HasPrefix(e.Type, "workspace.")
		}},
		{nil, []string{a.ID}, func(e harness.Event) bool { return e.Resource == a.ID }},
		{[]string{"pane.removed"}, []string{b.ID, a.Tab}, func(e harness.Event) bool {
			return e.Type == "pane.removed" && (e.Resource == b.ID || e.Resource == a.Tab)
		}},
		{[]string{"pan"}, nil, func(harness.Event) bool { return false }}, // a prefix is dotted, not a string prefix
	}
	streams := make([]*harness.Stream, len(filters))
	for i, f := range filters {
		streams[i] = d.Subscribe(t, f.types, f.resources)
	}
	cli := followCLI(t, d, "--type", "pane.exited", "--resource", b.ID)

	d.Kill(t, a.ID)
	d.Kill(t, b.ID)
	if r := d.CLI(t, "workspace", "rename", "--workspace", w.ID, "--name", "renamed"); r.Code != 0 {
		t.Fatal(r)
	}
	if r := d.CLI(t, "workspace", "remove", "--workspace", w.ID); r.Code != 0 {
		t.Fatal(r)
	}
	all.WaitFor(t, harness.PollTimeout, "workspace.removed", func(e harness.Event) bool { return e.Type == "workspace.removed" })
	everything := all.Seen()
	checkSeq(t, all.Ready, everything)

	for i, f := range filters {
		var expected []harness.Event
		for _, e := range everything {
			if f.match(e) {
				expected = append(expected, e)
			}
		}
		name := fmt.Sprintf("types %v resources %v", f.types, f.resources)
		var got []harness.Event
		if len(expected) > 0 {
			got = streams[i].WaitCount(t, harness.PollTimeout, len(expected))
		}
		if fmt.Sprint(seqs(got)) != fmt.Sprint(seqs(expected)) {
			t.Errorf("filter %s delivered %v, want %v:\n%s", name, seqs(got), seqs(expected), harness.DumpEvents(streams[i].Seen()))
		}
	}
	// The CLI's --type/--resource flags.
	harness.Eventually(t, harness.PollTimeout, "the CLI printed b's pane.exited", func() (bool, string) {
		return len(cli.Lines()) >= 2, strings.Join(cli.Lines(), "\n")
	})
	if ce := cli.Events(t); len(ce) != 1 || ce[0].Type != "pane.exited" || ce[0].Resource != b.ID {
		t.Errorf("events --follow --type pane.exited --resource %s printed:\n%s", b.ID, harness.DumpEvents(ce))
	}
	cli.stop(t)
	// Finally, nothing more arrived on the filtered streams since.
	for i, f := range filters {
		n := 0
		for _, e := range everything {
			if f.match(e) {
				n++
			}
		}
		if got := len(streams[i].Seen()); got != n {
			t.Errorf("filter %d delivered %d events, want %d", i, got, n)
		}
	}
}

func seqs(es []harness.Event) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

// Events never carry argv beyond argv0, the environment, input or output.
func TestEventsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	d := harness.Start(t)
	s := d.Subscribe(t, nil, nil)
	cli := followCLI(t, d)

	w := d.CreateWorkspace(t, "secrets")
	p := d.Spawn(t, append(ws(w), "--env", "SECRET=CANARY_ENV_456"), "sh", "-c",
		`echo CANARY_ARG_123; printf '\033]2;title\007'; read line; echo "$line" | tr A-Z a-z; exec sleep 100`)
	if len(p.Argv) != 3 || p.Argv[1] != "-c" || !strings.Contains(p.Argv[2], "CANARY_ARG_123") || !slices.Equal(p.Env, []string{"SECRET"}) {
		t.Errorf("the pane itself shows its argv and its env's names to its owner: %+v", p)
	}
	d.WaitLine(t, p.ID, "CANARY_ARG_123")
	d.Send(t, p.ID, `CANARY_INPUT_789\n`)
	d.WaitLine(t, p.ID, "canary_input_789")
	b := d.Spawn(t, []string{"--split", p.ID, "--axis", "rows", "--env", "SECRET=CANARY_ENV_456"}, "sleep", "CANARY_ARG_123")
	d.Kill(t, b.ID)
	if r := d.CLI(t, "workspace", "remove", "--workspace", w.ID, "--recursive"); r.Code != 0 {
		t.Fatal(r)
	}
	s.WaitFor(t, harness.PollTimeout, "workspace.removed", func(e harness.Event) bool { return e.Type == "workspace.removed" })
	harness.Eventually(t, harness.PollTimeout, "the CLI printed workspace.removed", func() (bool, string) {
		ls := cli.Lines()
		return len(ls) > 0 && strings.Contains(ls[len(ls)-1], "workspace.removed"), strings.Join(ls, "\n")
	})
	cli.stop(t)

	es := s.Seen()
	types := map[string]bool{}
	for _, e := range es {
		types[e.Type] = true
	}
	for _, typ := range []string{"pane.created", "pane.title", "pane.exited", "pane.removed"} {
		if !types[typ] {
			t.Errorf("no %s event (the check below would be vacuous):\n%s", typ, harness.DumpEvents(es))
		}
	}
	canaries := []string{"CANARY_ARG_123", "CANARY_ENV_456", "SECRET", "CANARY_INPUT_789", "canary_input_789"}
	for _, e := range es {
		for _, c := range canaries {
			if strings.Contains(string(e.Raw), c) {
				t.Errorf("event carries %q: %s", c, e.Raw)
			}
		}
	}
	for _, l := range cli.Lines() {
		for _, c := range canaries {
			if strings.Contains(l, c) {
				t.Errorf("signaltty events printed %q: %s", c, l)
			}
		}
	}
}
