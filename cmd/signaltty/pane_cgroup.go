package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
	"github.com/spf13/pflag"
)

// The cgroup parts of pane spawn, pane get and doctor (docs/systemd.md,
// "One cgroup per pane").

func spawnLimitFlags(f *pflag.FlagSet) {
	f.Int64("memory-max", 0, "limit the pane's cgroup to this many bytes of memory (needs a delegated cgroup)")
	f.Int64("pids-max", 0, "limit the pane's cgroup to this many tasks (needs a delegated cgroup)")
}

// printPaneDetail prints a pane as printPane does, then its cgroup.
func (a *app) printPaneDetail(raw json.RawMessage) error {
	if err := a.printPane(raw); err != nil {
		return err
	}
	var r struct{ Pane mux.Pane }
	if err := decode(raw, &r); err != nil {
		return err
	}
	if c := r.Pane.Cgroup; c != nil {
		fmt.Fprintf(a.out, "cgroup: %s\n", c.Path)
		fmt.Fprintf(a.out, "  processes: %s\n", pidList(c.Pids))
		if len(c.Escaped) > 0 {
			fmt.Fprintf(a.out, "  escaped (outlived the leader): %s\n", pidList(c.Escaped))
		}
		if c.Memory_bytes != nil {
			fmt.Fprintf(a.out, "  memory: %d bytes\n", *c.Memory_bytes)
		}
		if c.Cpu_usec != nil {
			fmt.Fprintf(a.out, "  cpu: %.3f s\n", float64(*c.Cpu_usec)/1e6)
		}
		if c.Memory_max != nil {
			fmt.Fprintf(a.out, "  memory_max: %d bytes\n", *c.Memory_max)
		}
		if c.Pids_max != nil {
			fmt.Fprintf(a.out, "  pids_max: %d\n", *c.Pids_max)
		}
	}
	return nil
}

func pidList(pids []int64) string {
	if len(pids) == 0 {
		return "none"
	}
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.FormatInt(p, 10)
	}
	return strings.Join(s, " ")
}

// writeDoctorCgroups reports the containment mode and names escaped processes.
func writeDoctorCgroups(w io.Writer, c *srv.Cgroups, say, warn func(string, ...any)) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "cgroups: %s\n", c.Mode)
	if c.Mode == "delegated" {
		path := ""
		if c.Path != nil {
			path = *c.Path
		}
		ctl := "none"
		if len(c.Controllers) > 0 {
			ctl = strings.Join(c.Controllers, ", ")
		}
		say("one cgroup per pane below %s; controllers: %s", path, ctl)
	} else {
		reason := ""
		if c.Reason != nil {
			reason = *c.Reason
		}
		say("panes share the daemon's cgroup (%s): processes that leave a pane's process group are not stopped with it", reason)
	}
	for _, e := range c.Escaped {
		warn("pane %s has exited but processes it started still run: pids %s (they stop when the pane is relaunched or removed)", e.Pane, pidList(e.Pids))
	}
}
