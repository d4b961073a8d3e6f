package clientconfig

import (
	"bytes"
	"fmt"
)

// VS Code's mcp.json (and Cursor's, which follows it) is JSONC: JSON plus
// // and /* */ comments and trailing commas. Rather than a second parser,
// a config is read through its "view": the same bytes with every comment
// and trailing comma blanked out by spaces (line ends kept). The view is
// plain JSON at the very same offsets, so everything found in it (where an
// entry starts and ends) can be edited in the file's own bytes, and the
// comments the user wrote stay where they are.

// jsoncView returns data with comments and trailing commas replaced by
// spaces, and whether it had any. An unterminated block comment is an
// error; other mistakes are left for json.Valid to find.
func jsoncView(data []byte) ([]byte, bool, error) {
	if bytes.IndexByte(data, '/') < 0 && bytes.IndexByte(data, ',') < 0 {
		return data, false, nil
	}
	view := bytes.Clone(data)
	changed := false
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if view[k] != '\n' && view[k] != '\r' {
				view[k] = ' '
			}
		}
		changed = true
	}
	// Comments first: a comma followed by a comment and then '}' is still
	// a trailing comma.
	for i := 0; i < len(view); {
		switch {
		case view[i] == '"':
			i = skipStringEnd(view, i)
		case view[i] == '/' && i+1 < len(view) && view[i+1] == '/':
			end := bytes.IndexAny(view[i:], "\r\n")
			if end < 0 {
				end = len(view) - i
			}
			blank(i, i+end)
			i += end
		case view[i] == '/' && i+1 < len(view) && view[i+1] == '*':
			end := bytes.Index(view[i+2:], []byte("*/"))
			if end < 0 {
				return nil, false, fmt.Errorf("not valid JSON: a /* comment at line %d is never closed", lineOf(data, i))
			}
			blank(i, i+2+end+2)
			i += 2 + end + 2
		default:
			i++
		}
	}
	for i := 0; i < len(view); {
		switch view[i] {
		case '"':
			i = skipStringEnd(view, i)
			continue
		case ',':
			j := i + 1
			for j < len(view) && isSpace(view[j]) {
				j++
			}
			if j < len(view) && (view[j] == '}' || view[j] == ']') {
				blank(i, i+1)
			}
		}
		i++
	}
	return view, changed, nil
}

// skipStringEnd returns the index past the string starting at b[i], or
// len(b) when it is never closed (json.Valid then refuses the file).
func skipStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineOf is the 1-based line holding data[i].
func lineOf(data []byte, i int) int { return bytes.Count(data[:i], []byte("\n")) + 1 }
