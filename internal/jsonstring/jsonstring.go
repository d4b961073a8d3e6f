// Package jsonstring writes Go strings as JSON strings, byte for byte as
// encoding/json does, without going through its buffers: the capture
// writes huge strings into log lines and the exporters write many small
// ones, and both are held to encoding/json's bytes.
package jsonstring

import (
	"slices"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string, byte for byte what encoding/json
// writes: '"', '\\' and control characters escaped (\b \f \n \r \t, else
// \u00XX), an invalid UTF-8 byte as \ufffd, U+2028 and U+2029 as \u2028
// and \u2029. With html, <, > and & are escaped too (\u003c, \u003e,
// \u0026), as encoding/json does unless SetEscapeHTML(false), so the
// result is safe inside an HTML <script> element.
func Append(dst []byte, s string, html bool) []byte {
	if len(s) > 64<<10 {
		// One allocation for a long string, not one per doubling.
		dst = slices.Grow(dst, length(s, html)+2)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiCost(c, html) == 1 {
				i++
				continue
			}
			dst = appendASCII(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendASCII appends the escape of an ASCII byte that needs one.
func appendASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// Len is how many bytes Append(dst, s, false) adds, quotes left out.
func Len(s string) int { return length(s, false) }

func length(s string, html bool) int {
	n := 0
	for i := 0; i < len(s); {
		cost, size := charCost(s[i:], html)
		n += cost
		i += size
	}
	return n
}

// Cut is the longest prefix of s, ending on a character, whose escaped
// form (Append without html) takes at most limit bytes, quotes left out.
func Cut(s string, limit int) string {
	n := 0
	for i := 0; i < len(s); {
		cost, size := charCost(s[i:], false)
		if n+cost > limit {
			return s[:i]
		}
		n += cost
		i += size
	}
	return s
}

// charCost is how many bytes the first character of s (size bytes) takes
// once escaped.
func charCost(s string, html bool) (cost, size int) {
	if c := s[0]; c < utf8.RuneSelf {
		return asciiCost(c, html), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
		return 6, size
	}
	return size, size
}

// asciiCost is how many bytes an ASCII byte takes once escaped.
func asciiCost(c byte, html bool) int {
	switch {
	case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
		return 2
	case c < 0x20:
		return 6
	case html && (c == '<' || c == '>' || c == '&'):
		return 6
	}
	return 1
}
