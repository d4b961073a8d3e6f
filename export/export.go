// Package export renders captured sessions into formats other tools read:
// json for jq, text for terminals and bug reports, html for a browser (this
// package), har and otlp (its subpackages). Every format is fed by the
// checker's one pass over the log: frames and calls arrive as the engine
// judges them, and each session is written once the input has been read.
// Renderers hold what they render on disk-backed Records, not in memory,
// so a long log exports in bounded memory.
package export

import (
	"io"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Format is one export format. The exporter calls Event for every frame as
// it passes and Call for every call as it ends, keeps the bytes they return
// (nil keeps nothing), and once the input is read writes Begin, then
// Session for each session in order, then End. The exporter copies what
// Event and Call return before it calls either again, so a format may
// reuse one buffer for them.
type Format interface {
	// Event renders one frame while ev is valid (its Frame aliases the
	// reader's buffer).
	Event(ev *checker.FrameEvent) ([]byte, error)
	// Call renders one call. Calls of a session arrive in the order they
	// end; Session gets them back in call-index order.
	Call(r *checker.CallRecord) ([]byte, error)
	// Begin writes what comes before the first session.
	Begin(w io.Writer, o *Output) error
	// Session writes one session's part of the output.
	Session(w io.Writer, s *Session) error
	// End writes what comes after the last session.
	End(w io.Writer, o *Output) error
}

// Output describes the export as a whole.
type Output struct {
	GeneratedAt time.Time
	Version     string // the build's version, "dev" when unset
	Sessions    int    // how many sessions will be written
	// Run is set when the export was asked for one run (--run).
	Run *checker.Run
}

// Session is one session, handed to Format.Session once the input is read.
type Session struct {
	Output *Output
	// Report is the engine's summary of the session (KeepBodies was set,
	// so Capabilities and Definitions are filled).
	Report *checker.SessionReport
	// Run is the run the session belongs to, nil when it has none.
	Run *checker.Run
	// Calls holds what Format.Call returned, indexed by call index (a call
	// whose Call returned nil has an empty slot); a format can look up the
	// call an event belongs to while it writes the events.
	Calls IndexedRecords
	// Events holds what Format.Event returned, in the order frames passed
	// (nil returns are not kept).
	Events Records

	// Index is the session's position in the output (0, 1, ...).
	Index int
	// Slowest are up to five of the session's finished tools/call calls,
	// the slowest first (ties: the earlier start first).
	Slowest []SlowCall
}

// SlowCall is one entry of a session's slowest tool calls.
type SlowCall struct {
	CallIndex  int     `json:"call_index"`
	ID         string  `json:"id"`
	ToolName   string  `json:"tool_name"`
	DurationMs float64 `json:"duration_ms"`
	IsError    bool    `json:"is_error"`

	start time.Time
}

// Records is a sequence of rendered pieces kept by the exporter.
type Records interface {
	// Len is the number of slots.
	Len() int
	// Each calls fn with every slot in order; b is valid only during the
	// call and is empty for an empty slot. An error from fn stops it.
	Each(fn func(i int, b []byte) error) error
}

// IndexedRecords are Records that can also be read out of order.
type IndexedRecords interface {
	Records
	// At returns slot i; b stays valid until the next At or Each.
	At(i int) (b []byte, err error)
}

// EachKept calls fn with every non-empty slot of r, in order: i is the
// slot's index (a call's index for Session.Calls), n how many slots fn was
// called with before (n > 0: a separator is due), b as for Each.
func EachKept(r Records, fn func(i, n int, b []byte) error) error {
	n := 0
	return r.Each(func(i int, b []byte) error {
		if len(b) == 0 {
			return nil
		}
		n++
		return fn(i, n-1, b)
	})
}
