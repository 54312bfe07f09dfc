// Package cgroup puts each pane's processes into a cgroup of their own, a
// child of the daemon's delegated cgroup on the unified (v2) hierarchy
// (docs/systemd.md, "One cgroup per pane"). It reads a group's processes
// and use, sets limits, and kills a group as a whole with cgroup.kill.
//
// Only what a delegated subtree allows is done: directories and files
// below the daemon's own cgroup. The daemon first moves itself into the
// leaf "daemon" (cgroup v2 puts processes only in leaves once controllers
// are enabled for the children).
package cgroup
