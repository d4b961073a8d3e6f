package export

import (
	"bytes"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonstring"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
)

// The hand-written JSON encoding below is what keeps a large export close to
// check's speed: every frame's raw payload is re-indented and every event
// and call is rendered, and encoding/json's reflection and its Indent (a
// byte-at-a-time state machine) cost several times the whole check pass.
// The output is byte-for-byte what encoding/json would write with
// SetEscapeHTML(false) and a two-space indent; the tests hold it to that.

// indentUnit is one level of indentation.
const indentUnit = "  "

// newlines is a newline followed by enough spaces for deep nesting, sliced
// to the wanted level.
var newlines = "\n" + string(bytes.Repeat([]byte{' '}, 256))

// appendNewline appends a newline and level levels of indentation.
func appendNewline(dst []byte, level int) []byte {
	level = max(level, 0) // only on invalid input
	n := 1 + level*len(indentUnit)
	if n <= len(newlines) {
		return append(dst, newlines[:n]...)
	}
	dst = append(dst, '\n')
	for range level {
		dst = append(dst, indentUnit...)
	}
	return dst
}

// delimiter marks the bytes that end a number or a literal.
var delimiter = [256]bool{',': true, ']': true, '}': true, ':': true, ' ': true, '\t': true, '\n': true, '\r': true}

// AppendIndent is appendIndent, for the formats in subpackages.
func AppendIndent(dst, src []byte, depth int) []byte { return appendIndent(dst, src, depth) }

// appendIndent appends src, one valid JSON value, re-indented as if it sat
// depth levels deep in an indented document: the same bytes as
// json.Indent(dst, src, <depth levels>, "  "), without leading or trailing
// whitespace. Strings are copied in bulk, so payloads made mostly of text
// (tool results) go at memory speed.
func appendIndent(dst, src []byte, depth int) []byte {
	level := depth
	open := false // just after '{' or '[': the newline waits, so empty stays {} and []
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if open && c != ']' && c != '}' {
			open = false
			level++
			dst = appendNewline(dst, level)
		}
		switch c {
		case '"':
			j := jsonwalk.SkipString(src, i)
			dst = append(dst, src[i:j]...)
			i = j
			continue
		case '{', '[':
			dst = append(dst, c)
			open = true
		case ',':
			dst = append(dst, ',')
			dst = appendNewline(dst, level)
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				level--
				dst = appendNewline(dst, level)
			}
			dst = append(dst, c)
		default:
			j := i + 1
			for j < len(src) && !delimiter[src[j]] {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
			continue
		}
		i++
	}
	return dst
}

// appendString appends s as a JSON string the way encoding/json writes one;
// with html also <, > and & escaped, so the result is safe inside an HTML
// <script> element.
func appendString(dst []byte, s string, html bool) []byte { return jsonstring.Append(dst, s, html) }

// appendFloat appends f as encoding/json writes a float64; NaN and the
// infinities, which encoding/json refuses, are written as 0.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendTime appends t as a JSON string, the way time.Time marshals: RFC
// 3339 with nanoseconds, in the offset it was captured in.
func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// durationMs is d in milliseconds, with nanosecond precision.
func durationMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cutUTF8 returns the longest prefix of s no longer than n bytes that does
// not split a UTF-8 sequence.
func cutUTF8(s []byte, n int) []byte {
	if len(s) <= n {
		return s
	}
	for k := 0; k < utf8.UTFMax && n > 0 && !utf8.RuneStart(s[n]); k++ {
		n--
	}
	return s[:n]
}
