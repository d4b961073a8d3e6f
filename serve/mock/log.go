package mock

import (
	"bytes"
	"io"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// NewLog starts the session log of one conversation on out: the meta frame
// first, then the conversation's frames as the stdio shim would write them
// (one a message; a message the transport made for the client, rather
// than the client itself, with "by_proxy": true).
func NewLog(out io.WriteCloser, o capture.LogOptions, meta capture.SessionMeta) *capture.LogWriter {
	o.Framer = framer{}
	w := capture.NewLogWriter(out, o)
	w.Meta(meta)
	return w
}

// frameInfo rides each observation the conversation logs.
type frameInfo struct{ byProxy bool }

// framer makes one frame of each observation: JSON as raw, anything else
// (a line that is no JSON, a note) as text.
type framer struct{}

func (framer) Frames(o *capture.Observation, out []capture.Frame) []capture.Frame {
	f := capture.Frame{TS: o.TS, Direction: o.Direction}
	var scratch bytes.Buffer
	if raw, ok := capture.CompactJSON(o.Data, &scratch); ok && (o.JSON || o.Direction != capture.Stderr) {
		f.Raw = bytes.Clone(raw)
	} else {
		f.Text, f.Truncated = string(o.Data), o.Truncated
		if len(f.Text) > capture.MaxLogLine {
			f.Text, f.Truncated = f.Text[:capture.MaxLogLine], true
		}
	}
	if x, ok := o.Info.(frameInfo); ok {
		f.ByProxy = x.byProxy
	}
	return append(out, f)
}

func (framer) Written(*capture.Observation, []capture.Frame) {}
