// Package termsafe makes text that came off the wire safe to print on a
// terminal or into a CI log. It is the one escaping every output a person
// reads goes through: check's text report, export -T text, diff, the
// viewer, the runs and baseline listings and the GitHub job summary. A
// session id, a server label, a tool name or a message is peer-controlled,
// and without it could move the cursor, forge a "check passed" line or
// start a line a CI runner obeys as a command.
package termsafe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean makes text from the wire safe to put on a terminal: a control
// character (C0, DEL, C1), a bidirectional override and an invalid byte
// become a visible escape (\x1b, \u202e), so a frame can neither move the
// cursor, retitle the window nor shift the columns. A tab becomes spaces
// (to the next multiple of 8 when multiline); multiline keeps newlines and
// drops the \r of a \r\n.
func Clean(s string, multiline bool) string {
	if !needsCleaning(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
			col += 4
		case r == '\n' && multiline:
			b.WriteByte('\n')
			col = 0
		case r == '\r' && multiline && strings.HasPrefix(s[i+1:], "\n"):
			// the \n that follows ends the line
		case r == '\t':
			n := 1
			if multiline {
				n = 8 - col%8
			}
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			q = q[1 : len(q)-1]
			b.WriteString(q)
			col += len(q)
		default:
			b.WriteString(s[i : i+size])
			col++
		}
		i += size
	}
	return b.String()
}

// needsCleaning reports whether s holds anything Clean would change.
func needsCleaning(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && (c != '\n' || !multiline) || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			// Rarely reached: decode the rest properly.
			for _, r := range s[i:] {
				if r == utf8.RuneError || (unsafeRune(r) && (r != '\n' || !multiline)) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// unsafeRune reports a rune a terminal would act on rather than show.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
