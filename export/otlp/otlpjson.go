package otlp

import (
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"
)

// This file holds the part of the OTLP trace model mcpsnoop writes (ids,
// spans, their attributes and status, a resource, the scope) and its
// OTLP/JSON encoding: the protobuf JSON mapping with OTLP's exceptions
// (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding).
// Field names are lowerCamelCase, trace and span ids lowercase hex rather
// than base64, enums (kind, status code) their numbers, 64-bit integers
// (times, intValue) decimal strings. Fields are written in the order of
// their proto field numbers and left out when zero or empty, except where
// the collector's pdata writes them anyway (a span's status, a resource,
// a scope, an attribute's value): the bytes are pdata's own for the same
// spans, which the tests hold against pdata. The one deliberate
// difference: pdata copies invalid UTF-8 into a string as it is (which no
// longer makes it JSON); here each invalid byte becomes U+FFFD, as
// encoding/json does, since a collector's protobuf strings must be UTF-8.

// TraceID is a trace id; its OTLP/JSON is 32 lowercase hex digits.
type TraceID [16]byte

// String is the id in hex.
func (t TraceID) String() string { return hex.EncodeToString(t[:]) }

// IsEmpty says whether the id is all zeros (no trace id).
func (t TraceID) IsEmpty() bool { return t == TraceID{} }

// SpanID is a span id; its OTLP/JSON is 16 lowercase hex digits.
type SpanID [8]byte

// String is the id in hex.
func (s SpanID) String() string { return hex.EncodeToString(s[:]) }

// IsEmpty says whether the id is all zeros (no span id).
func (s SpanID) IsEmpty() bool { return s == SpanID{} }

// Span kinds and status codes, as OTLP numbers them.
const (
	kindServer  = 2
	kindClient  = 3
	statusError = 2
)

// span is one OTLP span; the kinds of field OTLP has and mcpsnoop does
// not use (events, links, dropped counts) are left out.
type span struct {
	traceID    TraceID
	spanID     SpanID
	traceState string
	parentID   SpanID
	flags      uint32
	name       string
	kind       int32
	start, end uint64 // unix ns
	attrs      attrs
	status     status
}

// status is a span's status: code 0 (Unset) and no message by default.
type status struct {
	message string
	code    int32
}

// attrs are attributes in the order they were put.
type attrs []attr

// attr is one attribute; kind says which of its values it holds.
type attr struct {
	key  string
	kind valueKind
	s    string
	i    int64 // also a bool, as 0 or 1
	d    float64
}

type valueKind byte

const (
	stringValue valueKind = iota
	intValue
	doubleValue
	boolValue
)

func (a *attrs) putStr(k, v string)       { *a = append(*a, attr{key: k, kind: stringValue, s: v}) }
func (a *attrs) putInt(k string, v int64) { *a = append(*a, attr{key: k, kind: intValue, i: v}) }
func (a *attrs) putDouble(k string, v float64) {
	*a = append(*a, attr{key: k, kind: doubleValue, d: v})
}
func (a *attrs) putBool(k string, v bool) {
	i := int64(0)
	if v {
		i = 1
	}
	*a = append(*a, attr{key: k, kind: boolValue, i: i})
}

// appendSpan appends the span's OTLP/JSON (compact).
func appendSpan(b []byte, s *span) []byte {
	o := object{b: append(b, '{')}
	if !s.traceID.IsEmpty() {
		o.field("traceId")
		o.b = appendHex(o.b, s.traceID[:])
	}
	if !s.spanID.IsEmpty() {
		o.field("spanId")
		o.b = appendHex(o.b, s.spanID[:])
	}
	if s.traceState != "" {
		o.field("traceState")
		o.b = appendString(o.b, s.traceState)
	}
	if !s.parentID.IsEmpty() {
		o.field("parentSpanId")
		o.b = appendHex(o.b, s.parentID[:])
	}
	if s.flags != 0 {
		o.field("flags")
		o.b = strconv.AppendUint(o.b, uint64(s.flags), 10)
	}
	if s.name != "" {
		o.field("name")
		o.b = appendString(o.b, s.name)
	}
	if s.kind != 0 {
		o.field("kind")
		o.b = strconv.AppendInt(o.b, int64(s.kind), 10)
	}
	if s.start != 0 {
		o.field("startTimeUnixNano")
		o.b = appendUint64(o.b, s.start)
	}
	if s.end != 0 {
		o.field("endTimeUnixNano")
		o.b = appendUint64(o.b, s.end)
	}
	o.attrs(s.attrs)
	o.field("status")
	st := object{b: append(o.b, '{')}
	if s.status.message != "" {
		st.field("message")
		st.b = appendString(st.b, s.status.message)
	}
	if s.status.code != 0 {
		st.field("code")
		st.b = strconv.AppendInt(st.b, int64(s.status.code), 10)
	}
	o.b = append(st.b, '}')
	return append(o.b, '}')
}

// appendResource appends a resource with attributes a.
func appendResource(b []byte, a attrs) []byte {
	o := object{b: append(b, '{')}
	o.attrs(a)
	return append(o.b, '}')
}

// appendScope appends an instrumentation scope that has only a name.
func appendScope(b []byte, name string) []byte {
	o := object{b: append(b, '{')}
	if name != "" {
		o.field("name")
		o.b = appendString(o.b, name)
	}
	return append(o.b, '}')
}

// object appends an object's fields, a comma before each but the first.
type object struct {
	b    []byte
	more bool
}

func (o *object) field(name string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

// attrs writes the attributes field, unless there are none.
func (o *object) attrs(a attrs) {
	if len(a) == 0 {
		return
	}
	o.field("attributes")
	o.b = append(o.b, '[')
	for i := range a {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendAttr(o.b, &a[i])
	}
	o.b = append(o.b, ']')
}

// appendAttr appends one KeyValue: {"key":...,"value":{"<kind>Value":...}}.
func appendAttr(b []byte, a *attr) []byte {
	o := object{b: append(b, '{')}
	if a.key != "" {
		o.field("key")
		o.b = appendString(o.b, a.key)
	}
	o.field("value")
	v := object{b: append(o.b, '{')}
	switch a.kind {
	case stringValue:
		v.field("stringValue")
		v.b = appendString(v.b, a.s)
	case intValue:
		v.field("intValue")
		v.b = appendInt64(v.b, a.i)
	case doubleValue:
		v.field("doubleValue")
		v.b = appendDouble(v.b, a.d)
	case boolValue:
		v.field("boolValue")
		v.b = strconv.AppendBool(v.b, a.i != 0)
	}
	o.b = append(v.b, '}')
	return append(o.b, '}')
}

// appendHex appends id as a string of lowercase hex digits (OTLP's
// exception to protobuf's base64 for bytes).
func appendHex(b, id []byte) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, id)
	return append(b, '"')
}

// appendInt64 and appendUint64 write 64-bit integers as decimal strings,
// as the protobuf JSON mapping does (a JSON number may not hold them).
func appendInt64(b []byte, v int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '"')
}

func appendUint64(b []byte, v uint64) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, v, 10)
	return append(b, '"')
}

// appendDouble writes a double as the shortest decimal that reads back
// as v, in exponent form below 1e-6 and from 1e21 on; NaN and the
// infinities as the strings protobuf's JSON mapping names them.
func appendDouble(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, v, format, -1, 64)
}

// appendString appends s as a JSON string: '"' and '\' escaped, \n \r \t
// as such and the other control characters as \u00XX, everything else
// (U+2028 and U+2029 included) as it is, except invalid UTF-8, each byte
// of which becomes \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"
