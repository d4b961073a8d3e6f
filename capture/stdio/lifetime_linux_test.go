package stdio

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processGone reports whether pid has ended: it no longer exists, or it is
// a zombie nobody reaped (a container's pid 1 may never reap).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// parentOf is the parent pid of pid, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, err := strconv.Atoi(fields[1]) // state, then ppid
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// waitAllGone polls, for at most bound, until every pid has ended, and
// returns those that have not.
func waitAllGone(bound time.Duration, pids ...int) []int {
	deadline := time.Now().Add(bound)
	for {
		var left []int
		for _, p := range pids {
			if !processGone(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A shim killed with SIGKILL leaves no process of the server's behind
// within 2 s: not the wrapper it started (sh -c), not the real server
// behind it (a grandchild, which the kernel's parent-death signal never
// reached), not what ended them (the shell's watcher, or the Go
// supervisor where there is no shell). The server ignores the end of its
// input, so nothing else would end it.
func TestShimKilledLeavesNoServerBehind(t *testing.T) {
	for _, tt := range []struct{ name, shell string }{
		{"shell watcher", "/bin/sh"},
		{"Go supervisor", "none"},
	} {
		t.Run(tt.name, func(t *testing.T) { shimKilledLeavesNothing(t, tt.shell) })
	}
}

func shimKilledLeavesNothing(t *testing.T, shell string) {
	argv, _ := json.Marshal([]string{"sh", "-c", `sleep 1000 </dev/null & echo "grandchild $!"; echo "wrapper $$"; wait`})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=plain-shim", commandEnv+"="+string(argv), shellEnv+"="+shell)
	stdin, err := cmd.StdinPipe() // held open: no end of input
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	sc := bufio.NewScanner(out)
	for len(pids) < 2 && sc.Scan() {
		name, pid, _ := strings.Cut(sc.Text(), " ")
		pids[name], _ = strconv.Atoi(pid)
	}
	wrapper, grandchild := pids["wrapper"], pids["grandchild"]
	if wrapper <= 0 || grandchild <= 0 {
		cmd.Process.Kill()
		t.Fatalf("the server said %v", pids)
	}
	// What supervises the server is in its group, and is neither of them.
	var keepers []int
	for _, p := range groupOf(t, wrapper) {
		if p != wrapper && p != grandchild {
			keepers = append(keepers, p)
		}
	}
	all := append([]int{wrapper, grandchild}, keepers...)
	t.Cleanup(func() {
		for _, p := range all {
			if !processGone(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	parent := parentOf(t, wrapper)
	switch {
	case len(keepers) != 1:
		t.Errorf("the server's group holds %v besides the server %v: want one watcher or supervisor", keepers, []int{wrapper, grandchild})
	case shell == "none" && parent != keepers[0]:
		t.Errorf("the wrapper's parent is %d, not the supervisor %d", parent, keepers[0])
	case shell != "none" && (parent != cmd.Process.Pid || parentOf(t, keepers[0]) == wrapper):
		t.Errorf("the wrapper's parent is %d (want the shim, %d) and the watcher's %d (want not the server)", parent, cmd.Process.Pid, parentOf(t, keepers[0]))
	}
	if running := waitAllGone(0, all...); len(running) != len(all) {
		t.Fatalf("before the kill, only %v of %v run", running, all)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if left := waitAllGone(2*time.Second, all...); len(left) > 0 {
		t.Errorf("2s after the shim was killed, %v of the server's processes %v still run", left, all)
	}
}

// groupOf lists the live processes in pid's process group, from /proc.
func groupOf(t *testing.T, pid int) []int {
	t.Helper()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var members []int
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(p); err == nil && g == pgid && !processGone(p) {
			members = append(members, p)
		}
	}
	return members
}

// startServer returns once the shell execs the server, its watcher
// already forked: the kill grace and the signals the shim passes on are
// then the server's, not the shell's start-up.
func TestWatcherIsUpWhenTheServerStarts(t *testing.T) {
	if watcherShell() == "" {
		t.Skip("no shell to run the watcher")
	}
	exited := make(chan struct{})
	cmd, tree, err := startServer([]string{"sleep", "30"}, nil, nil, nil, exited)
	if err != nil {
		t.Fatal(err)
	}
	members := groupOf(t, cmd.Process.Pid)
	_ = tree.kill()
	<-exited
	tree.release()
	if len(members) != 2 {
		t.Errorf("when startServer returned, the server's group held %v: want the server and its watcher", members)
	}
}
