//go:build linux

package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// monotonic is CLOCK_MONOTONIC in nanoseconds, the same clock in every
// process on the machine.
func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// helpersOf lists what the shim started for itself: the processes under
// root, or in the server's process group (a helper that left the tree,
// like mcpsnoop's watcher, forked twice so as to be nobody's child, stays
// in the group the shim made, when it made one), that are neither the
// server nor under it.
func helpersOf(root, server int) []int {
	parent, group := map[int]int{}, map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if pp, pg, ok := ppid(pid); ok {
			parent[pid], group[pid] = pp, pg
		}
	}
	return helpersIn(parent, group, root, server)
}

// helpersIn is helpersOf on processes given by their parent and group.
func helpersIn(parent, group map[int]int, root, server int) []int {
	var hs []int
	for pid := range parent {
		if pid == server || pid == root || under(pid, server, parent) {
			continue
		}
		if under(pid, root, parent) || (group[pid] == group[server] && group[server] != group[root]) {
			hs = append(hs, pid)
		}
	}
	return hs
}

// under says whether anc is a strict ancestor of pid.
func under(pid, anc int, parent map[int]int) bool {
	for i := 0; i < 64; i++ {
		pp, ok := parent[pid]
		if !ok || pp <= 1 {
			return false
		}
		if pp == anc {
			return true
		}
		pid = pp
	}
	return false
}

// ppid reads the parent and the process group from /proc/PID/stat (after
// the command name, which may hold spaces and parentheses).
func ppid(pid int) (parent, group int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:])) // state, ppid, pgrp, ...
	if len(f) < 3 {
		return 0, 0, false
	}
	pp, err1 := strconv.Atoi(f[1])
	pg, err2 := strconv.Atoi(f[2])
	return pp, pg, err1 == nil && err2 == nil
}

// vmHWM is the process's peak RSS in KiB so far, 0 once it is gone (or
// a zombie, whose memory is already released).
func vmHWM(pid int) int64 {
	return statusField("/proc/"+strconv.Itoa(pid)+"/status", "VmHWM:")
}

// onCPU is the time the process's threads have run, in ns: the first
// field of each /proc/PID/task/TID/schedstat (a thread that already
// exited is missed; the Go runtime seldom ends one); 0 once it is gone.
func onCPU(pid int) int64 {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/[0-9]*/schedstat")
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return sum
}

// rollup is the process's Pss and anonymous memory, in KiB.
func rollup(pid int) (pss, anon int64) {
	p := "/proc/" + strconv.Itoa(pid) + "/smaps_rollup"
	return statusField(p, "Pss:"), statusField(p, "Anonymous:")
}

// statusField reads one "Key: N kB" line of a /proc file.
func statusField(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, key); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				n, _ := strconv.ParseInt(fs[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
