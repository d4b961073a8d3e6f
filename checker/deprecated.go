package checker

import (
	"sort"
	"strings"

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
)

// deprecationNote returns the deprecation note of a frame (check.md 3.7), "" when none,
// given the frame's method (any kind: request or notification; "" for responses), and for
// responses whether the result is input_required with its inputRequests object, and the
// error object (gjson.Result{} when none).
func deprecationNote(method string, inputRequired bool, inputRequests gjson.Result, errVal gjson.Result) string {
	if note := methodDeprecationNote(method); note != "" {
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
	inputRequests.ForEach(func(_, req gjson.Result) bool {
		if !req.IsObject() {
			return true
		}
		if m := req.Get("method"); m.Type == gjson.String && methodDeprecationNote(m.Str) != "" {
			methods = append(methods, m.Str)
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
	return strings.Join(notes, "; ")
}
