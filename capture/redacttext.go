package capture

import (
	"strings"
)

// scrubKeyValues is the tolerant scan key rules get on text that is not
// JSON: almost-JSON (a trailing comma, single quotes, a comment), a log
// line that quotes a message, a Python dict. Every quoted name ("token" or
// 'token') followed by a colon whose name is a redact key has its value
// replaced: a quoted string by the placeholder in the same quotes, an
// object or array (to its matching bracket) or a bare word (to the next
// comma, bracket or blank) by "[REDACTED]". One pass, no parsing: it
// never fails, whatever the text.
func (r *Redactor) scrubKeyValues(s string) (string, bool) {
	if len(r.keys) == 0 || strings.IndexByte(s, ':') < 0 {
		return s, false
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	// A quote that never closes (an apostrophe in prose) is skipped; once
	// one has not closed, no later quote of its kind can, so the scan stays
	// linear.
	var unclosed [2]bool // '"', '\''
	for i := 0; i < len(s); {
		q := s[i]
		if (q != '"' && q != '\'') || unclosed[quoteKind(q)] {
			i++
			continue
		}
		end := quotedEnd(s, i)
		if end < 0 {
			unclosed[quoteKind(q)] = true
			i++
			continue
		}
		colon := skipBlanks(s, end)
		if colon >= len(s) || s[colon] != ':' || !r.keys[strings.ToLower(unescapeName(s[i+1:end-1]))] {
			i = end
			continue
		}
		vs := skipBlanks(s, colon+1)
		ve := valueEnd(s, vs)
		repl := `"` + RedactedValue + `"`
		if vs < len(s) && s[vs] == '\'' {
			repl = `'` + RedactedValue + `'`
		}
		if s[vs:ve] == repl {
			i = ve
			continue
		}
		b.WriteString(s[done:vs])
		b.WriteString(repl)
		done, i = ve, ve
	}
	if done == 0 {
		return s, false
	}
	b.WriteString(s[done:])
	return b.String(), true
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

// unescapeName undoes the escapes a quoted name may hold, the simple way:
// a backslash keeps the byte after it.
func unescapeName(n string) string {
	if strings.IndexByte(n, '\\') < 0 {
		return n
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if n[i] == '\\' && i+1 < len(n) {
			i++
		}
		b.WriteByte(n[i])
	}
	return b.String()
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
