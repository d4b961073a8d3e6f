package checker

import (
	"sort"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// Deprecation notes (check.md 3.7).
const (
	noteRoots          = "roots is deprecated (2026-07-28); use tool parameters, resource URIs, or server configuration instead"
	noteSampling       = "sampling is deprecated (2026-07-28); integrate directly with an LLM provider API instead"
	noteLogging        = "logging is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead"
	noteLoggingMessage = "logging notifications/message is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead"
	noteCode32002      = "error code -32002 (resource not found) is retired (2026-07-28); use -32602 invalid params instead"
	noteCode32042      = "error code -32042 (URL elicitation required) was defined only in 2025-11-25 and is retired"
	// From the spec's registry of deprecated features (SEP-2596), with the
	// earliest removal it states.
	noteIncludeContext = `sampling includeContext "thisServer" and "allServers" are deprecated (2025-11-25); omit it or use "none" (earliest removal: with Sampling, the first revision released on or after 2027-07-28)`
	noteHTTPSSE        = "the HTTP+SSE transport is deprecated (2025-03-26); use Streamable HTTP (earliest removal: three months after SEP-2596 reaches Final)"
)

// deprecationNote returns the deprecation note of a frame (check.md 3.7), "" when none,
// given the frame's method (any kind: request or notification; "" for responses), and for
// responses whether the result is input_required with its inputRequests object, and the
// error object (gjson.Result{} when none).
func deprecationNote(method string, params gjson.Result, inputRequired bool, inputRequests gjson.Result, errVal gjson.Result) string {
	if note := methodDeprecationNote(method); note != "" {
		if ctx := includeContextNote(method, params); ctx != "" {
			note += "; " + ctx
		}
		return note
	}
	if inputRequired {
		if note := innerDeprecationNotes(inputRequests); note != "" {
			return note
		}
	}
	if errVal.IsObject() {
		if code := errVal.Get("code"); code.Type == gjson.Number {
			switch code.Num {
			case -32002:
				return noteCode32002
			case -32042:
				return noteCode32042
			}
		}
	}
	return ""
}

// includeContextNote is the note of a sampling request asking for the
// deprecated context of this server or of all servers.
func includeContextNote(method string, params gjson.Result) string {
	if method != "sampling/createMessage" || !params.IsObject() {
		return ""
	}
	switch params.Get("includeContext").Str {
	case "thisServer", "allServers":
		return noteIncludeContext
	}
	return ""
}

// methodDeprecationNote is rule 1 of check.md 3.7: the note a method name
// carries by itself.
func methodDeprecationNote(method string) string {
	switch {
	case strings.HasPrefix(method, "roots/"), strings.HasPrefix(method, "notifications/roots/"):
		return noteRoots
	case strings.HasPrefix(method, "sampling/"):
		return noteSampling
	case strings.HasPrefix(method, "logging/"):
		return noteLogging
	case method == "notifications/message":
		return noteLoggingMessage
	}
	return ""
}

// innerDeprecationNotes is rule 2 of check.md 3.7: the notes of the methods
// inside an inputRequests map, taken in sorted method order, each note once,
// joined with "; ".
func innerDeprecationNotes(inputRequests gjson.Result) string {
	if !inputRequests.IsObject() {
		return ""
	}
	var methods []string
	withContext := false
	inputRequests.ForEach(func(_, req gjson.Result) bool {
		if !req.IsObject() {
			return true
		}
		if m := req.Get("method"); m.Type == gjson.String && methodDeprecationNote(m.Str) != "" {
			methods = append(methods, m.Str)
			if includeContextNote(m.Str, req.Get("params")) != "" {
				withContext = true
			}
		}
		return true
	})
	if len(methods) == 0 {
		return ""
	}
	sort.Strings(methods)
	var notes []string
	for _, m := range methods {
		note := methodDeprecationNote(m)
		dup := false
		for _, n := range notes {
			if n == note {
				dup = true
				break
			}
		}
		if !dup {
			notes = append(notes, note)
		}
	}
	if withContext {
		notes = append(notes, noteIncludeContext)
	}
	return strings.Join(notes, "; ")
}

// legacyEndpoint reports the first event of the deprecated HTTP+SSE
// transport: on the event stream a GET opened, the URI the client is to
// POST its messages to (an "endpoint" event). Not JSON-RPC, and no stray
// output either: the old transport's own handshake.
func legacyEndpoint(f *capture.Frame) bool {
	if f.Transport != capture.TransportHTTP || f.Direction != capture.ServerToClient || f.HTTPMethod != "GET" || f.Text == "" {
		return false
	}
	t := f.Text
	if strings.ContainsAny(t, " \t\r\n") {
		return false
	}
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://")
}
