package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// The text of an interaction and of an elicitation is the same wherever it
// is shown (check --verbose, export -T text, the viewer's panels): these
// functions give it as lines without indentation or newline. The first line
// sums the item up; the lines after it are its details, which callers
// indent one step further than the first.

// InteractionLines renders a multi-round-trip operation: what it was, its
// round trips, the wall clock split into the server's and the client's
// share, and its outcome; then one line per hop and, when hops were left
// out, a note saying so.
func InteractionLines(it checker.Interaction) []string {
	lines := make([]string, 0, 1+len(it.Hops)+1)
	lines = append(lines, fmt.Sprintf("%s (id %s): %d round trips, %s wall clock = %s server + %s client, %s",
		subject(it.Method, it.Name), it.RootID, it.RoundTrips, Milliseconds(it.DurationMs),
		Milliseconds(it.ServerTimeMs), Milliseconds(it.ClientTurnaroundMs), it.Outcome))
	for i, h := range it.Hops {
		var parts []string
		if i > 0 {
			parts = append(parts, "client "+Milliseconds(h.ClientTurnaroundMs))
		}
		if h.ResponseTS != "" {
			parts = append(parts, "server "+Milliseconds(h.ServerTimeMs))
		} else {
			parts = append(parts, "no answer")
		}
		if len(h.Asked) > 0 {
			parts = append(parts, "asked "+strings.Join(h.Asked, ", "))
		}
		lines = append(lines, fmt.Sprintf("hop %d (id %s): %s", i+1, h.RequestID, strings.Join(parts, ", ")))
	}
	if it.HopsTruncated {
		lines = append(lines, fmt.Sprintf("(hops past the first %d not listed)", len(it.Hops)))
	}
	return lines
}

// ElicitationLines renders a question put to the user: the operation it
// interrupted, the mode, the key (or the id of the request that asked it),
// and what the user
// did after how long; then the message, the url or the form's fields. A
// submitted value is never among them.
func ElicitationLines(e checker.Elicitation) []string {
	key := e.Key
	switch {
	case key != "":
	case e.RequestID != "":
		// a 2025-11-25 request, asked in the middle of the call named
		key = "elicitation/create (id " + e.RequestID + ")"
	default:
		key = "(id " + e.RootID + ")"
	}
	outcome := "pending"
	if !e.Pending {
		outcome = e.Action
		if outcome == "" {
			outcome = "answered"
		}
		if e.ElapsedMs != nil {
			outcome += " after " + Milliseconds(*e.ElapsedMs)
		}
	}
	lines := []string{fmt.Sprintf("%s [%s] %s: %s", subject(e.Method, e.Name), e.Mode, key, outcome)}
	if e.Message != "" {
		msg := fmt.Sprintf("%q", e.Message)
		if e.MessageTruncated {
			msg += " (truncated)"
		}
		lines = append(lines, msg)
	}
	if e.Mode == "url" {
		lines = append(lines, fmt.Sprintf("url %s (host %s)", e.URL, e.Host))
	}
	for _, f := range e.Fields {
		lines = append(lines, f.Name+" "+f.Type)
	}
	if e.FieldsTruncated {
		lines = append(lines, "(more fields not listed)")
	}
	return lines
}

// Milliseconds renders a count of milliseconds as a Go duration rounded to
// the millisecond ("1.2s", "400ms").
func Milliseconds(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Millisecond).String()
}

// subject names an operation: its method, and its tool, prompt or resource
// when it has one.
func subject(method, name string) string {
	if name != "" {
		return method + " " + name
	}
	return method
}
