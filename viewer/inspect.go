package viewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

const inspectPrefix = "frame #"

func inspectTitle(r *Row) string { return fmt.Sprintf("%s%d", inspectPrefix, r.Frame.Seq) }

func isInspector(title string) bool { return strings.HasPrefix(title, inspectPrefix) }

// inspect is the inspector page of one frame: what the engine made of it,
// the envelope's metadata, then the body, JSON pretty-printed.
func inspect(r *Row, l Limits) string {
	f := &r.Frame
	var b strings.Builder
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%-13s %s\n", name, value)
		}
	}
	field("session", f.SessionID)
	field("label", f.ServerLabel)
	if r.Source != "" {
		field("log", fmt.Sprintf("%s line %d", r.Source, r.Line))
	}
	field("seq", fmt.Sprint(f.Seq))
	field("time", f.TS.Format(time.RFC3339Nano))
	field("direction", f.Direction)
	field("transport", f.Transport)
	field("kind", r.Kind)
	field("method", r.Method)
	field("tool", r.Tool)
	field("id", r.ID)
	if r.call != nil {
		c := fmt.Sprintf("#%d %s", r.call.Index, r.call.Status)
		if d, ok := r.Duration(); ok {
			c += ", " + FormatDuration(d)
		}
		field("call", c)
	}
	if f.Status != 0 {
		field("http status", fmt.Sprint(f.Status))
	}
	field("auth challenge", f.AuthChallenge)
	field("conn", f.ConnID)
	field("content type", f.ContentType)
	field("accept", f.Accept)
	field("origin", f.Origin)
	field("Mcp-Method", f.McpMethod)
	field("Mcp-Name", f.McpName)
	field("MCP-Protocol", f.McpProtocolVersion)
	for _, h := range f.McpParamHeaders {
		field(h.Name, h.Value)
	}
	if len(f.ReplyTo) > 0 {
		field("reply to", string(f.ReplyTo))
	}
	field("errors", strings.Join(r.Errors, "; "))
	field("warning", r.Warning)
	if r.Mismatch {
		field("mismatch", "routing headers disagree with the body (or a -32020 rejection)")
	}
	field("observation", r.Observation)
	field("deprecated", r.Deprecated)
	var flags []string
	if f.Batch {
		flags = append(flags, "batch element")
	}
	if f.Truncated {
		flags = append(flags, "truncated at 16 MiB")
	}
	if f.Redacted {
		flags = append(flags, "redacted")
	}
	field("flags", strings.Join(flags, ", "))
	b.WriteString("\n")
	switch {
	case r.Released:
		budget := ""
		if l.BodyBytes > 0 {
			budget = fmt.Sprintf(" (%d MiB of bodies, %d frames)", l.BodyBytes>>20, l.MaxFrames)
		}
		fmt.Fprintf(&b, "The body of this frame was released to keep the live view within its memory budget%s.\n", budget)
		if r.Source != "" {
			fmt.Fprintf(&b, "The log still holds it: line %d of %s (mcpsnoop open %s shows it).\n", r.Line, r.Source, r.Source)
		}
	case len(f.Raw) > 0:
		var out bytes.Buffer
		if json.Indent(&out, f.Raw, "", "  ") == nil {
			b.Write(out.Bytes())
		} else {
			b.Write(f.Raw)
		}
		b.WriteString("\n")
	case f.Text != "":
		b.WriteString(f.Text + "\n")
	case f.Status != 0:
		b.WriteString("(no body: a bare HTTP status)\n")
	default:
		b.WriteString("(empty)\n")
	}
	return b.String()
}
