package replay

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// readMethods are requests the protocol defines as reads: replaying them
// cannot change what the server holds.
var readMethods = map[string]bool{
	"ping": true, "server/discover": true, "tools/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true, "prompts/list": true,
	"prompts/get": true, "completion/complete": true,
}

// SkipReason says why the request r is not sent ("" when it is). all
// replays tools and methods that may change the server's state; edited,
// when not nil, are params the user wrote in place of the recorded ones
// (nothing recorded is then sent verbatim, and the tool judged is the one
// they name).
//
// A tool is replayed by default only when the recorded listing annotates
// it readOnlyHint: true, or idempotentHint: true with destructiveHint:
// false, and never when it says destructiveHint: true. Annotations take
// their spec defaults, so a tool that leaves destructiveHint out may be
// destructive. A replay also lists the live server's tools before the
// first call, and the stricter of the two listings decides
// (liveSkipReason). Nothing redacted at capture is
// ever sent: the placeholder would reach the server as though a user had
// typed it.
func (rec *Recording) SkipReason(r *Request, all bool, edited json.RawMessage) string {
	switch {
	case r.Truncated:
		return "the recorded request was cut at capture (over 16 MiB), so there is no message to send"
	case r.Method == "notifications/cancelled":
		return "a cancellation is not replayed; the call it cancelled is replayed to its end"
	case r.Method == "subscriptions/listen":
		return "a subscription stream stays open until the client ends it; it is not replayed"
	}
	if edited == nil {
		for _, h := range r.Headers {
			if h.Redacted {
				return fmt.Sprintf("the recorded header %s was scrubbed by redaction; mcpsnoop does not send the placeholder as though a user had typed it", h.Name)
			}
		}
		if r.Redacted {
			return "the recorded request was redacted at capture; mcpsnoop does not send its placeholders as though a user had typed them (edit it with R in the viewer)"
		}
	}
	if r.Notification() || readMethods[r.Method] {
		return ""
	}
	if r.Method != "tools/call" {
		if all {
			return ""
		}
		return r.Method + " may change the server's state; --all replays it"
	}
	name := r.Name
	if edited != nil {
		name = operationName(r.Method, edited)
	}
	if all {
		return ""
	}
	t, ok := rec.listing[name]
	if !ok {
		if !rec.listed {
			return "the recording has no tools/list to say the tool is read-only; --all replays it"
		}
		return "the recorded tools/list does not list tool " + strconv.Quote(name) + "; --all replays it"
	}
	h := parseHints(t.Annotations)
	if h.safe() {
		return ""
	}
	if isTrue(h.Destructive) {
		return "the recorded tools/list annotates tool " + strconv.Quote(name) + " destructiveHint: true (" + h.String() + "); --all replays it"
	}
	return "tool " + strconv.Quote(name) + " is not annotated readOnlyHint, or idempotentHint without destructiveHint; --all replays it"
}

// InitSkipReason says why the recorded initialize cannot be sent, which
// stops a replay before its first request ("" when it can, or when there
// is none). Like any request, one that redaction changed at capture is
// never sent: its placeholders would reach the server as though a client
// had sent them.
func (rec *Recording) InitSkipReason() string {
	if rec.Init != nil && rec.Init.Redacted {
		return fmt.Sprintf("the recorded initialize (line %d) was redacted at capture; mcpsnoop does not send its placeholders as though a client had sent them, and a replay cannot start without it", rec.Init.Line)
	}
	return ""
}

// hints are the behaviour annotations of a tool that decide whether a
// replay may send it; nil is a hint the listing leaves out, which takes
// the spec's default (readOnlyHint false, destructiveHint true,
// idempotentHint false).
type hints struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Idempotent  *bool `json:"idempotentHint"`
	Destructive *bool `json:"destructiveHint"`
}

// parseHints reads a tool's annotations; what is not an object of them
// reads as none (every hint at its default).
func parseHints(raw json.RawMessage) hints {
	var h hints
	if len(raw) > 0 && json.Unmarshal(raw, &h) != nil {
		return hints{}
	}
	return h
}

// safe reports whether the hints make a replay harmless: nothing says
// destructiveHint: true (even beside readOnlyHint: true, which the spec
// says makes it meaningless: a contradiction is read the cautious way),
// and the tool is read-only, or idempotent and declared not destructive.
func (h hints) safe() bool {
	if isTrue(h.Destructive) {
		return false
	}
	return isTrue(h.ReadOnly) || isTrue(h.Idempotent) && isFalse(h.Destructive)
}

// stricter merges the hints of two listings of one tool (the recording's
// and the live server's) into the cautious reading of both: read-only and
// idempotent only when both say so, not destructive only when both say
// false, destructive when either says true.
func stricter(a, b hints) hints {
	both := func(x, y *bool) *bool { v := isTrue(x) && isTrue(y); return &v }
	var d *bool
	switch {
	case isTrue(a.Destructive) || isTrue(b.Destructive):
		d = ptr(true)
	case isFalse(a.Destructive) && isFalse(b.Destructive):
		d = ptr(false)
	}
	return hints{ReadOnly: both(a.ReadOnly, b.ReadOnly), Idempotent: both(a.Idempotent, b.Idempotent), Destructive: d}
}

// String names the hints a listing gives, for a skip reason.
func (h hints) String() string {
	var parts []string
	for _, x := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", h.ReadOnly}, {"idempotentHint", h.Idempotent}, {"destructiveHint", h.Destructive}} {
		if x.v != nil {
			parts = append(parts, fmt.Sprintf("%s: %t", x.name, *x.v))
		}
	}
	if len(parts) == 0 {
		return "none of readOnlyHint, idempotentHint, destructiveHint"
	}
	return strings.Join(parts, ", ")
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }
func ptr(b bool) *bool     { return &b }

// liveSkipReason says why the tool name, which the recording's listing
// lets a replay send, is not sent after all ("" when it is): the live
// server's listing (live, which offers it) is read together with the
// recording's, and the stricter reading decides, so that a tool the live
// server now calls destructive is never replayed on the strength of an
// old recording. failed says why there is no live listing ("" when there
// is one).
func (rec *Recording) liveSkipReason(name string, live json.RawMessage, failed string) string {
	if failed != "" {
		return "the live server's tools cannot be listed (" + failed + "), so nothing says tool " + strconv.Quote(name) + " is still read-only; --all replays it"
	}
	recorded, l := parseHints(rec.listing[name].Annotations), parseHints(live)
	if stricter(recorded, l).safe() {
		return ""
	}
	if isTrue(l.Destructive) {
		return "the live server annotates tool " + strconv.Quote(name) + " destructiveHint: true (" + l.String() + "), whatever the recording said; --all replays it"
	}
	return "the live server annotates tool " + strconv.Quote(name) + " with " + l.String() + ", and the recording with " + recorded.String() +
		"; only a tool both call read-only, or idempotent and not destructive, is replayed; --all replays it"
}
