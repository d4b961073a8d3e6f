package stdio

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// LauncherEnv is the variable the npm package's launcher (bin/mcpsnoop.js
// under packaging/npm) sets for the binary it starts:
// "<launcher pid>:<client pid>", the client being the process that started
// the launcher (past npx's own processes). Without it every session run
// through npm would name the launcher as its client process, and run
// grouping by client process (p-<ppid>-<start>) would see one run per
// session.
const LauncherEnv = "MCPSNOOP_LAUNCHER"

// clientPID is the process that started this run: our parent, unless our
// parent is the npm launcher and names the process that started it.
func clientPID() int {
	ppid := os.Getppid()
	if pid, ok := launcherClient(os.Getenv(LauncherEnv), ppid, processStart); ok {
		return pid
	}
	return ppid
}

// launcherClient reads v, the LauncherEnv value, for a process whose parent
// is ppid. It is taken only when the launcher it names is that parent (a
// value inherited from further up, say by a server that starts mcpsnoop
// itself, is not ours) and when the client started no later than the
// launcher did (a later start is another process that reused the pid; where
// start times can be read at all, one that cannot be read is a process that
// is gone).
func launcherClient(v string, ppid int, start func(int) (time.Time, bool)) (int, bool) {
	l, c, ok := strings.Cut(v, ":")
	if !ok {
		return 0, false
	}
	launcher, err := strconv.Atoi(l)
	if err != nil || launcher != ppid || launcher <= 0 {
		return 0, false
	}
	client, err := strconv.Atoi(c)
	if err != nil || client <= 0 || client == launcher {
		return 0, false
	}
	cs, cok := start(client)
	ls, lok := start(launcher)
	if lok && (!cok || cs.After(ls)) {
		return 0, false
	}
	return client, true
}
