//go:build unix

package stdio

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Where a POSIX shell is at hand (every Unix but a distroless image), the
// supervisor is not this program started again but a shell that does
// less: the watcher, which holds the lifeline and kills the whole process
// group with SIGKILL once the lifeline ends. The server is started first,
// directly, as the shim's own child and the leader of a group of its own
// (with the parent-death signal on Linux, and its exit status as it is);
// the watcher is started right after it and joins that group. The watcher
// is all the session costs besides the shim (a shell, 1.7 MB at its peak
// by bench/footprint.sh, where a Go supervisor holds the runtime and its
// share of this program's binary, several MB, and takes its start-up).
//
// Starting the server first keeps the shell off its path: a client waits
// for the server, not for a shell to start and fork (a shell that forks
// the watcher twice, then execs the server, took 4 to 6 ms more). The
// watcher is the shim's child, not the server's (a server that waits for
// all its children would wait for it), yet in the server's group; it
// ignores SIGINT, SIGTERM and SIGHUP, and its only descriptor is the
// lifeline, on its stdin. Until it has joined the group, a millisecond or
// two after the server started and before startServer returns, a shim
// killed with SIGKILL leaves the server to its parent-death signal (Linux;
// on macOS it survives that window). A server that has already exited
// leaves no group to join: there is nothing to watch then.
const watcherScript = `trap '' INT TERM HUP; while read -r _; do :; done; kill -9 0`

// shellPath is the shell that runs watcherScript; a variable for the tests
// that run the Go supervisor instead.
var shellPath = "/bin/sh"

// watcherShell is the shell to run the watcher in, or "" when there is
// none (the server is then started under the Go supervisor).
func watcherShell() string {
	if shellPath == "" {
		return ""
	}
	if fi, err := os.Stat(shellPath); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return shellPath
}

// startWatched starts argv, whose program is at path, in a process group of
// its own, then the watcher in that group.
func startWatched(shell, path string, argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, *serverTree, error) {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	if err := startLocked(cmd, exited); err != nil {
		return nil, nil, err
	}
	done, err := startWatcher(shell, cmd.Process.Pid)
	if err != nil {
		done = func() {} // the server has exited, or no process can be started
	}
	return cmd, &serverTree{p: cmd.Process, done: done}, nil
}

// startWatcher starts the watcher in process group pgid; done ends its
// lifeline.
func startWatcher(shell string, pgid int) (done func(), err error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	w := exec.Command(shell, "-c", watcherScript)
	w.Args[0] = "mcpsnoop-watcher"
	w.Stdin = lifeR
	w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = w.Start()
	lifeR.Close()
	if err != nil {
		lifeW.Close()
		return nil, err
	}
	go func() { _ = w.Wait() }() // it ends with the group, once done is called
	return func() {
		lifeW.Close()
		runtime.KeepAlive(lifeW)
	}, nil
}
