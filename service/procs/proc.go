package procs

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Argv reads a process's argv (nil if gone).
func Argv(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// Stat reads a process's parent, process group and session (0s if gone).
func Stat(pid int) (ppid, pgrp, sid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0, 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return ppid, pgrp, sid
}

// StartTime is field 22 of /proc/PID/stat (start time, clock ticks
// after boot); false when the process is gone or a zombie.
func StartTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:]) // field 3 (state) onwards
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// Name is pid's /proc/PID/comm (the executed file's name, at most 15
// bytes), "?" when it cannot be read.
func Name(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	name := strings.TrimSpace(string(b))
	if name == "" {
		name = "?"
	}
	return name
}
