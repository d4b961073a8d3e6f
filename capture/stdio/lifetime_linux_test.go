package stdio

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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
// reached), not the supervisor that ended them. The server ignores the
// end of its input, so nothing else would end it.
func TestShimKilledLeavesNoServerBehind(t *testing.T) {
	argv, _ := json.Marshal([]string{"sh", "-c", `sleep 1000 </dev/null & echo "grandchild $!"; echo "wrapper $$"; wait`})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=plain-shim", commandEnv+"="+string(argv))
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
	supervisor := parentOf(t, wrapper)
	all := []int{supervisor, wrapper, grandchild}
	t.Cleanup(func() {
		for _, p := range all {
			if !processGone(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	if supervisor == cmd.Process.Pid {
		t.Errorf("the wrapper's parent is the shim (%d), not a supervisor", supervisor)
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
