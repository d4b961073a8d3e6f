package capture

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/internal/secrets"
)

// scrubKeyValues is the tolerant scan key rules get on text that is not
// JSON: almost-JSON (a trailing comma, single quotes, a comment, unquoted
// names), a log line that quotes a message, a Python dict, a command line,
// an environment dump. It replaces the value after
//
//   - a quoted name ("token" or 'token', escapes undone) followed by a colon:
//     a quoted string by the placeholder in the same quotes, an object or
//     array (to its matching bracket) or a bare word (to the next comma,
//     bracket or blank) by "[REDACTED]";
//   - a bare name followed by ':' or '=' (password: x, {password:"x"},
//     token=x, ?access_token=x&): a quoted value as above, a bare one (to
//     the next blank, comma, ';', '&', quote or closing bracket) by
//     [REDACTED]; after Authorization, Cookie and the like followed by ':'
//     the rest of the line;
//   - a flag naming a key, --token x or --api-key=x: the word after it;
//
// when the name is one a key rule names. A scheme word (Bearer x) takes
// the word after it along. One pass, no parsing: it never fails, whatever
// the text.
func (r *Redactor) scrubKeyValues(s string) (string, bool) { return r.scanKeyValues(s, false) }

// scrubCommandLine is scrubKeyValues for a command line, where quotes are
// the shell's: after the usual scan, names and flags inside quotes are
// found too (sh -c 'server --token X').
func (r *Redactor) scrubCommandLine(s string) (string, bool) {
	out, changed := r.scanKeyValues(s, false)
	if blind, ok := r.scanKeyValues(out, true); ok {
		return blind, true
	}
	return out, changed
}

// scanKeyValues is the scan; quoteBlind reads quotes as any other
// character (bare names and flags only).
func (r *Redactor) scanKeyValues(s string, quoteBlind bool) (string, bool) {
	if !r.hasKeys() || strings.IndexAny(s, ":=-") < 0 {
		return s, false
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	replace := func(vs, ve int, repl string) {
		if s[vs:ve] == repl {
			return
		}
		b.WriteString(s[done:vs])
		b.WriteString(repl)
		done = ve
	}
	// A quote that never closes (an apostrophe in prose) is skipped; once
	// one has not closed, no later quote of its kind can, so the scan stays
	// linear.
	var unclosed [2]bool // '"', '\''
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case (c == '"' || c == '\'') && !quoteBlind:
			if unclosed[quoteKind(c)] {
				i++
				continue
			}
			end := quotedEnd(s, i)
			if end < 0 {
				unclosed[quoteKind(c)] = true
				i++
				continue
			}
			colon := skipBlanks(s, end)
			if colon >= len(s) || s[colon] != ':' || !r.isKey(unescapeName(s[i+1:end-1])) {
				i = end
				continue
			}
			vs := skipBlanks(s, colon+1)
			ve := valueEnd(s, vs)
			repl := `"` + RedactedValue + `"`
			if vs < len(s) && s[vs] == '\'' {
				repl = `'` + RedactedValue + `'`
			}
			replace(vs, ve, repl)
			i = max(ve, end)
		case isNameByte(c) && (i == 0 || !isNameByte(s[i-1]) && s[i-1] != '/'):
			// (A name after '/' is a segment of a path or a URL.)
			vs, ve, next := r.bareValue(s, i)
			if ve > vs {
				repl := RedactedValue
				switch s[vs] {
				case '"':
					repl = `"` + RedactedValue + `"`
				case '\'':
					repl = `'` + RedactedValue + `'`
				}
				replace(vs, ve, repl)
			}
			i = next
		default:
			i++
		}
	}
	if done == 0 {
		return s, false
	}
	b.WriteString(s[done:])
	return b.String(), true
}

// isNameByte reports whether c may be part of a bare name or a flag: a
// letter, a digit, '_' or '-'.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// bareValue reads the bare name (or flag) starting at s[i]. When a key
// rule names it and a value follows, it returns the value's span; next is
// where the scan goes on.
func (r *Redactor) bareValue(s string, i int) (vs, ve, next int) {
	j := i
	for j < len(s) && s[j] == '-' && j-i < 2 {
		j++
	}
	flag := j > i
	k := j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	name := s[j:k]
	if name == "" {
		return 0, 0, k + 1
	}
	p := k
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	switch {
	case flag && k < len(s) && s[k] == '=':
		vs = k + 1
	case flag && p > k && p < len(s) && s[p] != '-' && s[p] != '\n' && s[p] != '\r':
		vs = p // --token value
	case !flag && p < len(s) && s[p] == '=' && (p+1 >= len(s) || s[p+1] != '='):
		vs = skipSpaces(s, p+1)
	case !flag && p < len(s) && s[p] == ':' && !strings.HasPrefix(s[p:], "://") && (p+1 >= len(s) || s[p+1] != '='):
		vs = skipSpaces(s, p+1)
		if r.isKey(name) && secrets.TakesRestOfLine(name) {
			// A header: its value holds blanks of its own.
			ve = valueLineEnd(s, vs)
			return vs, ve, max(ve, k)
		}
	default:
		return 0, 0, k
	}
	if named := r.isKey(name) || flag && r.isFlag(name); !named {
		return 0, 0, k
	}
	if vs >= len(s) {
		return 0, 0, k
	}
	switch {
	case s[vs] == '"' || s[vs] == '\'' || s[vs] == '{' || s[vs] == '[':
		ve = valueEnd(s, vs)
	case s[vs] == '\\' && vs+1 < len(s) && (s[vs+1] == '"' || s[vs+1] == '\''):
		// A quoted value inside a quoted string (a shell script's
		// echo "{password:\"x\"}"): to the matching escaped quote.
		ve = len(s)
		if k := strings.Index(s[vs+2:], s[vs:vs+2]); k >= 0 {
			ve = vs + 2 + k + 2
		}
	default:
		ve = bareEnd(s, vs)
		if scheme := strings.ToLower(s[vs:ve]); scheme == "bearer" || scheme == "basic" || scheme == "token" || scheme == "digest" || scheme == "bot" {
			if w := skipSpaces(s, ve); w > ve && w < len(s) && bareEnd(s, w) > w {
				ve = bareEnd(s, w)
			}
		}
	}
	return vs, ve, max(ve, k)
}

// bareEnd is where an unquoted value that starts at s[i] ends: at the next
// blank, comma, ';', '&', quote or closing bracket.
func bareEnd(s string, i int) int {
	for i < len(s) && !strings.ContainsRune(" \t\r\n,;&\"')]}", rune(s[i])) {
		i++
	}
	return i
}

// valueLineEnd is where the line holding s[i] ends, trailing blanks left out.
func valueLineEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] != '\n' {
		j++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	return j
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func quoteKind(q byte) int {
	if q == '"' {
		return 0
	}
	return 1
}

// quotedEnd returns the index just past the string quoted by s[i], or -1
// when it never closes.
func quotedEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

// unescapeName undoes the escapes a quoted name may hold: JSON's (\u0077
// is w, a surrogate pair one character), and for anything else the byte
// after the backslash.
func unescapeName(n string) string {
	if strings.IndexByte(n, '\\') < 0 {
		return n
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if n[i] != '\\' || i+1 >= len(n) {
			b.WriteByte(n[i])
			continue
		}
		i++
		switch n[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, width := hexRune(n[i+1:])
			if width == 0 {
				b.WriteByte('u')
				continue
			}
			i += width
			if utf16.IsSurrogate(r) {
				if lo, w := hexRune(strings.TrimPrefix(n[i+1:], `\u`)); w > 0 && strings.HasPrefix(n[i+1:], `\u`) {
					if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
						r = pair
						i += 2 + w
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(n[i])
		}
	}
	return b.String()
}

// hexRune reads the four hex digits at the start of s.
func hexRune(s string) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 4
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns where the value starting at s[i] ends: past its closing
// quote, past its matching bracket (or at the end of the text), or at the
// next comma, bracket or blank.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"', '\'':
		if end := quotedEnd(s, i); end >= 0 {
			return end
		}
		return len(s)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"', '\'':
				end := quotedEnd(s, j)
				if end < 0 {
					return len(s)
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[j])) {
		j++
	}
	return j
}
