package stdio

import (
	"os"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// NewMeta describes a run of argv started now from this process: the
// content of its meta frame.
func NewMeta(argv []string) capture.SessionMeta {
	m := capture.SessionMeta{Command: argv}
	if m.Command == nil {
		m.Command = []string{}
	}
	if wd, err := os.Getwd(); err == nil {
		m.Cwd = wd
	}
	if ppid := clientPID(); ppid > 0 {
		m.PPID = ppid
		// A start after our own would be a different process that reused
		// the pid (Windows keeps the pid of a parent that has exited).
		if start, ok := processStart(ppid); ok && !start.After(time.Now()) {
			m.PPIDStart = start.Format(time.RFC3339Nano)
		}
	}
	return m
}
