package replay

import (
	"encoding/json"
	"fmt"
	"strconv"
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
// false. Annotations take their spec defaults, so a tool that leaves
// destructiveHint out may be destructive. Nothing redacted at capture is
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
	if safeAnnotations(t.Annotations) {
		return ""
	}
	return "tool " + strconv.Quote(name) + " is not annotated readOnlyHint, or idempotentHint without destructiveHint; --all replays it"
}

// safeAnnotations reports whether a tool's annotations make a replay
// harmless: read-only, or idempotent and declared not destructive
// (destructiveHint defaults to true).
func safeAnnotations(raw json.RawMessage) bool {
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Idempotent  *bool `json:"idempotentHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return false
	}
	if a.ReadOnly != nil && *a.ReadOnly {
		return true
	}
	return a.Idempotent != nil && *a.Idempotent && a.Destructive != nil && !*a.Destructive
}
