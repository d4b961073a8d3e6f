package viewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

const inspectPrefix = "frame #"

func inspectTitle(r *Row) string { return fmt.Sprintf("%s%d", inspectPrefix, r.Seq) }

func isInspector(title string) bool { return strings.HasPrefix(title, inspectPrefix) }

// inspect is the inspector page of one frame: what the engine made of it,
// the envelope's metadata, then the body, JSON pretty-printed.
func inspect(r *Row, l Limits) string {
	var b strings.Builder
	field := func(name, value string) {
		if value != "" { // one line each, whatever a peer put in it
			fmt.Fprintf(&b, "%-13s %s\n", name, clean(value, false))
		}
	}
	field("session", r.SessionID())
	field("label", r.Label())
	if r.Source() != "" {
		field("log", fmt.Sprintf("%s line %d", r.Source(), r.Line))
	}
	field("seq", fmt.Sprint(r.Seq))
	field("time", r.Time().Format(time.RFC3339Nano))
	field("direction", r.Direction)
	field("transport", r.Transport())
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
	if r.status != 0 {
		field("http status", fmt.Sprint(r.status))
	}
	if h := r.http; h != nil {
		field("auth challenge", h.authChallenge)
		field("conn", h.connID)
		field("content type", h.contentType)
		field("accept", h.accept)
		field("origin", h.origin)
		field("Mcp-Method", h.mcpMethod)
		field("Mcp-Name", h.mcpName)
		field("MCP-Protocol", h.protocol)
	}
	if x := r.extra; x != nil {
		for _, h := range x.params {
			field(h.Name, h.Value)
		}
		field("reply to", x.replyTo)
	}
	field("errors", strings.Join(r.Errors(), "; "))
	field("warning", r.Warning())
	if r.Mismatch() {
		field("mismatch", "routing headers disagree with the body (or a -32020 rejection)")
	}
	field("observation", r.Observation())
	field("deprecated", r.Deprecated())
	var flags []string
	if r.flags&flagBatch != 0 {
		flags = append(flags, "batch element")
	}
	if r.Truncated() {
		flags = append(flags, "truncated at 16 MiB")
	}
	if r.flags&flagRedacted != 0 {
		flags = append(flags, "redacted")
	}
	field("flags", strings.Join(flags, ", "))
	b.WriteString("\n")
	switch {
	case r.Released():
		budget := ""
		if l.BodyBytes > 0 {
			budget = fmt.Sprintf(" (%d MiB of bodies, %d frames)", l.BodyBytes>>20, l.MaxFrames)
		}
		fmt.Fprintf(&b, "The body of this frame was released to keep the live view within its memory budget%s.\n", budget)
		if r.Source() != "" {
			fmt.Fprintf(&b, "The log still holds it: line %d of %s (mcpsnoop open %s shows it).\n", r.Line, r.Source(), r.Source())
		}
	case r.flags&flagText == 0 && r.body != "":
		var out bytes.Buffer
		if json.Indent(&out, []byte(r.body), "", "  ") == nil {
			b.WriteString(capBody(out.String(), r))
		} else {
			b.WriteString(capBody(r.body, r))
		}
	case r.body != "":
		b.WriteString(capBody(r.body, r))
	case r.status != 0:
		b.WriteString("(no body: a bare HTTP status)\n")
	default:
		b.WriteString("(empty)\n")
	}
	return b.String()
}

// What the inspector renders of one body: a terminal page of megabytes
// only slows every redraw down, and the log holds the rest.
const (
	inspectMaxBytes = 1 << 20 // of the whole body
	inspectMaxLine  = 8 << 10 // of one line
)

// capBody cuts body to inspectMaxBytes and each of its lines to
// inspectMaxLine, saying what was left out and where it still is. The
// result ends in a newline.
func capBody(body string, r *Row) string {
	if len(body) <= inspectMaxLine && !strings.Contains(body, "\n") {
		return body + "\n"
	}
	var b strings.Builder
	rest := body
	for rest != "" && b.Len() < inspectMaxBytes {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		if len(line) > inspectMaxLine {
			cut := validPrefix(line, inspectMaxLine)
			fmt.Fprintf(&b, "%s… (%d more bytes on this line)\n", cut, len(line)-len(cut))
			continue
		}
		b.WriteString(line + "\n")
	}
	if rest != "" {
		fmt.Fprintf(&b, "… %d more bytes not shown", len(rest))
		if r.Source() != "" {
			fmt.Fprintf(&b, "; the whole frame is line %d of %s", r.Line, r.Source())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// validPrefix is s cut to at most n bytes without splitting a rune.
func validPrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
