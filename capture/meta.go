package capture

import (
	"bytes"
	"encoding/json"
	"os"
	"time"
)

// SessionMeta is the content of a stdio session's meta frame (seq 1): what was run
// and where, and which client process started the capture. PPID and
// PPIDStart together name that process across pid reuse; they are left out
// when they cannot be read, never guessed.
type SessionMeta struct {
	Command   []string `json:"command"`
	Cwd       string   `json:"cwd,omitempty"`
	PPID      int      `json:"ppid,omitempty"`
	PPIDStart string   `json:"ppid_start,omitempty"`
}

// NewMeta describes a run of argv started now from this process.
func NewMeta(argv []string) SessionMeta {
	m := SessionMeta{Command: argv}
	if m.Command == nil {
		m.Command = []string{}
	}
	if wd, err := os.Getwd(); err == nil {
		m.Cwd = wd
	}
	if ppid := os.Getppid(); ppid > 0 {
		m.PPID = ppid
		// A start after our own would be a different process that reused
		// the pid (Windows keeps the pid of a parent that has exited).
		if start, ok := processStart(ppid); ok && !start.After(time.Now()) {
			m.PPIDStart = start.Format(time.RFC3339Nano)
		}
	}
	return m
}

// JSON is the meta frame's raw value, without HTML escaping so that an "&"
// in an argument stays as typed.
func (m SessionMeta) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // strings and ints only: cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}
