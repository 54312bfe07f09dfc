package varlink

import (
	"sort"

	"github.com/signaltty/signaltty/cgroup"
	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

// Cgroup fields of Mux.SpawnPane, Mux.GetPane and Server.GetStatus
// (docs/systemd.md, "One cgroup per pane").

// limitsIn maps memory_max and pids_max; a value below 1 stays as given
// (negative) so that the service refuses it: invalid_params.limits.
func limitsIn(memoryMax, pidsMax *int64) cgroup.Limits {
	var l cgroup.Limits
	if memoryMax != nil {
		l.MemoryMax = *memoryMax
		if l.MemoryMax == 0 {
			l.MemoryMax = -1
		}
	}
	if pidsMax != nil {
		l.PidsMax = *pidsMax
		if l.PidsMax == 0 {
			l.PidsMax = -1
		}
	}
	return l
}

func paneCgroupOut(c *service.PaneCgroup) *mux.PaneCgroup {
	if c == nil {
		return nil
	}
	ints := func(v []int) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	}
	opt := func(v int64) *int64 {
		if v <= 0 {
			return nil
		}
		return &v
	}
	return &mux.PaneCgroup{Path: c.Path, Pids: ints(c.Pids), Escaped: ints(c.Escaped),
		Memory_bytes: c.MemoryBytes, Cpu_usec: c.CPUUsec, Memory_max: opt(c.MemoryMax), Pids_max: opt(c.PidsMax)}
}

func cgroupsOut(m service.CgroupMode) *srv.Cgroups {
	out := &srv.Cgroups{Mode: m.Mode, Path: strOpt(m.Path), Controllers: m.Controllers, Reason: strOpt(m.Reason)}
	if out.Controllers == nil {
		out.Controllers = []string{}
	}
	out.Escaped = []srv.EscapedPane{}
	for pane, pids := range m.Escaped {
		e := srv.EscapedPane{Pane: pane}
		for _, pid := range pids {
			e.Pids = append(e.Pids, int64(pid))
		}
		out.Escaped = append(out.Escaped, e)
	}
	sort.Slice(out.Escaped, func(i, j int) bool { return out.Escaped[i].Pane < out.Escaped[j].Pane })
	return out
}
