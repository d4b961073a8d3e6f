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
// Session for each session in order, then End.
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
	// whose Call returned nil has an empty slot).
	Calls Records
	// Events holds what Format.Event returned, in the order frames passed
	// (nil returns are not kept).
	Events Records
}

// Records is a sequence of rendered pieces kept by the exporter.
type Records interface {
	// Len is the number of slots.
	Len() int
	// Each calls fn with every slot in order; b is valid only during the
	// call and is empty for an empty slot. An error from fn stops it.
	Each(fn func(i int, b []byte) error) error
}
