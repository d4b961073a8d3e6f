package capture

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// lineJSON decides, in one pass, what the log writer needs to know about a
// line: whether it is exactly one JSON value in valid UTF-8 (what
// utf8.Valid && json.Valid accept) nested no deeper than MaxRawNesting, and
// whether compacting it would remove anything (whitespace outside strings).
// Strings, which carry nearly all the bytes of MCP traffic, are checked 32
// bytes at a time.
func lineJSON(b []byte) (valid, hasWS bool) {
	s := jsonScanner{b: b, strictUTF8: true, limit: MaxRawNesting}
	i := s.ws(0)
	end := s.value(i)
	if end < 0 || s.ws(end) != len(b) {
		return false, false
	}
	return true, s.sawWS
}

// plainASCII reports whether b holds only printable ASCII and DEL (no
// control character, nothing from 0x80 up). A byte flagged by the borrow of
// a control byte below it only sends the caller to its exact check.
func plainASCII(b []byte) bool {
	const low = 0x20 * ones
	i := 0
	for ; i+32 <= len(b); i += 32 {
		x0 := binary.LittleEndian.Uint64(b[i:])
		x1 := binary.LittleEndian.Uint64(b[i+8:])
		x2 := binary.LittleEndian.Uint64(b[i+16:])
		x3 := binary.LittleEndian.Uint64(b[i+24:])
		if ((x0-low)|x0|(x1-low)|x1|(x2-low)|x2|(x3-low)|x3)&highs != 0 {
			return false
		}
	}
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if ((x-low)|x)&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// strUTF8 validates the string at b[i] (its opening quote), UTF-8 included, and
// returns the index after its closing quote, or -1. Quotes and backslashes
// are found with bytes.IndexByte; the runs between them are checked for
// control characters and non-ASCII bytes 32 at a time.
func (s *jsonScanner) strUTF8(i int) int {
	b := s.b
	i++
	quote := -1 // index of the next '"' at or after i, once known
	for {
		if quote < i {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				return -1
			}
			quote = i + q
		}
		end := quote
		if bs := bytes.IndexByte(b[i:quote], '\\'); bs >= 0 {
			end = i + bs
		}
		if seg := b[i:end]; !plainASCII(seg) && !validRun(seg) {
			return -1
		}
		i = end
		if i == quote {
			return i + 1
		}
		// An escape at b[i].
		if i+1 >= len(b) {
			return -1
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return -1
			}
			i += 6
		default:
			return -1
		}
	}
}

// validRun reports whether a run of string content without quotes or
// backslashes is valid: no control characters, valid UTF-8.
func validRun(seg []byte) bool {
	for k := 0; k < len(seg); {
		c := seg[k]
		switch {
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(seg[k:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			k += size
		default:
			k++
		}
	}
	return true
}
