// Package tracecontext parses the W3C Trace Context values MCP carries in a
// request's _meta (traceparent and tracestate), following the W3C rules for
// invalid ids and future versions. The checker groups sessions into runs by
// the trace id; exports hand the context on to tracing backends.
package tracecontext

import (
	"errors"
	"strings"
)

// TraceParent is a parsed traceparent value.
type TraceParent struct {
	Version  string // two lowercase hex digits; "00" today
	TraceID  string // 32 lowercase hex digits, not all zero
	ParentID string // 16 lowercase hex digits, not all zero
	Flags    byte
}

// Errors ParseTraceParent returns; every one means the value must be
// ignored whole.
var (
	ErrFormat  = errors.New("traceparent is not version-traceid-parentid-flags in lowercase hex")
	ErrVersion = errors.New("traceparent version ff is forbidden")
	ErrTraceID = errors.New("traceparent trace-id is all zeros")
	ErrParent  = errors.New("traceparent parent-id is all zeros")
)

// ParseTraceParent parses a traceparent. Version 00 must be exactly 55
// characters; a higher version is read at the version-00 positions when it
// is at least that long and ends or continues with a dash after the flags,
// and further fields are ignored.
func ParseTraceParent(s string) (TraceParent, error) {
	if len(s) < 3 || !isHex(s[:2]) || s[2] != '-' {
		return TraceParent{}, ErrFormat
	}
	p := TraceParent{Version: s[:2]}
	if p.Version == "ff" {
		return TraceParent{}, ErrVersion
	}
	if len(s) < 55 || (p.Version == "00" && len(s) != 55) || (len(s) > 55 && s[55] != '-') {
		return TraceParent{}, ErrFormat
	}
	if s[35] != '-' || s[52] != '-' {
		return TraceParent{}, ErrFormat
	}
	p.TraceID, p.ParentID = s[3:35], s[36:52]
	flags := s[53:55]
	if !isHex(p.TraceID) || !isHex(p.ParentID) || !isHex(flags) {
		return TraceParent{}, ErrFormat
	}
	if allZero(p.TraceID) {
		return TraceParent{}, ErrTraceID
	}
	if allZero(p.ParentID) {
		return TraceParent{}, ErrParent
	}
	p.Flags = hexByte(flags)
	return p, nil
}

// MaxMembers is the most list members a tracestate may carry.
const MaxMembers = 32

// PassTraceState is the rule for a participant that hands a tracestate on
// without editing it, as exports do: the value is kept byte for byte unless
// it plainly cannot be a list, that is, it has more than MaxMembers
// members, or a non-empty member with no '=' or an empty key. Empty members
// (nothing but spaces and tabs between two commas) are allowed and not
// counted. Keys and values are not checked further: W3C leaves their
// meaning to the vendors that wrote them. It returns "" and false for a
// value to drop; never use it when the traceparent was invalid.
func PassTraceState(s string) (string, bool) {
	n := 0
	for _, item := range strings.Split(s, ",") {
		item = strings.Trim(item, " \t")
		if item == "" {
			continue
		}
		key, _, found := strings.Cut(item, "=")
		if !found || strings.TrimRight(key, " \t") == "" {
			return "", false
		}
		if n++; n > MaxMembers {
			return "", false
		}
	}
	return s, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') {
			return false
		}
	}
	return len(s) > 0
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

func hexByte(s string) byte {
	var b byte
	for i := 0; i < 2; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b = b<<4 | (c - '0')
		default:
			b = b<<4 | (c - 'a' + 10)
		}
	}
	return b
}
