package capture

import (
	"slices"
	"unicode/utf8"
)

// Strings are written into a log line directly, as encoding/json writes
// them with HTML escaping off: a 16 MiB line of control characters grows
// sixfold once escaped, and going through encoding/json's own buffer cost
// the shim two more copies of that, 270 MB for one line of junk.

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, byte for byte what
// encoding/json writes with SetEscapeHTML(false): '"', '\\' and control
// characters escaped (\b \f \n \r \t, else \u00XX), an invalid UTF-8 byte
// as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func AppendJSONString(dst []byte, s string) []byte {
	if len(s) > 64<<10 {
		// One allocation for a long string, not one per doubling.
		dst = slices.Grow(dst, escapedLen(s)+2)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escapedLen is how many bytes AppendJSONString takes for s, quotes left
// out.
func escapedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += asciiCost(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

func asciiCost(c byte) int {
	switch {
	case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
		return 2
	case c < 0x20:
		return 6
	}
	return 1
}

// cutEscaped is the longest prefix of s, ending on a character, whose
// escaped form takes at most limit bytes.
func cutEscaped(s string, limit int) string {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		cost, size := 1, 1
		if c < utf8.RuneSelf {
			cost = asciiCost(c)
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			cost = size
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				cost = 6
			}
		}
		if n+cost > limit {
			return s[:i]
		}
		n += cost
		i += size
	}
	return s
}
