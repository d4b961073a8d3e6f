//go:build unix

package stdio

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// Where a POSIX shell is at hand (every Unix but a distroless image), the
// supervisor is not this program started again but a shell that does
// less: it forks the watcher, a subshell that holds the lifeline and kills
// the whole process group with SIGKILL once the lifeline ends, and then
// execs the server in its own place. The server is then the shim's own
// child, with the parent-death signal (Linux) and its exit status as it
// is; the watcher is all the session costs besides the shim (a shell's
// few hundred KB, where a Go supervisor holds the runtime and its share of
// this program's binary, several MB, and takes its start-up).
//
// The watcher is forked twice so that it is no child of the server (a
// server that waits for all its children would wait for it) but stays in
// the group; it ignores SIGINT, SIGTERM and SIGHUP in itself alone (a
// subshell's dispositions are not the server's), and it holds none of the
// server's stdio. Its stdin is the lifeline, which the server does not
// inherit. Descriptor 4 is held by the shell until it execs the server: the
// shim waits for its end, so that the server is being started, as
// exec.Cmd.Start has it, when startServer returns (the kill grace after
// the end of input, say, is the server's own, not the shell's).
//
// A shell sets PWD when it starts (dash and bash add it, or correct it to
// the working directory), which the server would then inherit; the first
// argument says what the shim's own environment has ("=value", or "-" for
// none), and the script puts that back before the exec.
const watcherScript = `case $1 in =*) PWD=${1#=}; export PWD;; *) unset PWD;; esac; shift; ` +
	`( { trap '' INT TERM HUP; while read -r _; do :; done; kill -9 0; } <&3 3<&- 4>&- >/dev/null 2>&1 & ); exec "$@" 3<&- 4>&-`

// pwdArgument is watcherScript's first argument: the PWD of the shim's
// environment, which the server inherits.
func pwdArgument() string {
	if v, ok := os.LookupEnv("PWD"); ok {
		return "=" + v
	}
	return "-"
}

// shellPath is the shell that runs watcherScript; a variable for the tests
// that run the Go supervisor instead.
var shellPath = "/bin/sh"

// watcherShell is the shell to start argv under, or "" when there is none
// or argv cannot be given to its exec (a program named like an option).
func watcherShell(argv []string) string {
	if shellPath == "" || strings.HasPrefix(argv[0], "-") {
		return ""
	}
	if fi, err := os.Stat(shellPath); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return shellPath
}

// startWatched starts argv (already found on PATH, so the shell's exec
// finds the same program) under shell, in a process group of its own.
func startWatched(shell string, argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, *serverTree, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	execR, execW, err := os.Pipe()
	if err != nil {
		closeAll(lifeR, lifeW)
		return nil, nil, err
	}
	cmd := exec.Command(shell, append([]string{"-c", watcherScript, "mcpsnoop-supervisor", pwdArgument()}, argv...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{lifeR, execW} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr) // the server, once the shell has exec'd it
	err = startLocked(cmd, exited)
	closeAll(lifeR, execW)
	if err != nil {
		closeAll(lifeW, execR)
		return nil, nil, err
	}
	// The end of descriptor 4: the shell execs the server (or has ended).
	_, _ = io.Copy(io.Discard, execR)
	execR.Close()
	done := func() {
		lifeW.Close()
		runtime.KeepAlive(lifeW)
	}
	return cmd, &serverTree{p: cmd.Process, done: done}, nil
}
