// Package jsonwalk walks JSON that has already been validated, fast and
// without decoding: where a value ends, and the members of an object by
// byte offset. Most of an MCP message's bytes sit inside strings (tool
// results), and a string is skipped with bytes.IndexByte, so a walk costs
// little more than a memchr. Nothing here reports syntax errors.
//
// On bytes that are not valid JSON (a caller that walks a message it could
// not parse, to salvage what it can) no function reads past the end of b
// or panics: each returns an index of at most len(b), and Members calls fn
// only for a member whose value starts inside b.
package jsonwalk

import "bytes"

// SkipValue returns where the value starting at b[i] ends (len(b) when i
// is past the end).
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipComposite(b, i)
	}
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':'
}

// SkipString returns the index just past the string starting at b[i], or
// len(b) when it never closes.
func SkipString(b []byte, i int) int {
	start := i + 1
	i = start
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		q := i + j
		backslashes := 0
		for p := q - 1; p >= start && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return len(b)
}

func skipComposite(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(b)
}

// SkipWS returns the index of the first byte at or after i that is not
// JSON whitespace (len(b) at the most).
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return min(i, len(b))
}

// Members calls fn for each member of the object at b[i] with the offsets
// of its quoted key (b[keyStart:keyEnd], quotes included) and of its value;
// fn returns where the value ends (it may walk into the value itself, or
// call SkipValue). Members returns the index just past the object.
func Members(b []byte, i int, fn func(keyStart, keyEnd, valStart int) int) int {
	i = SkipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke := SkipString(b, i)
		vs := SkipWS(b, ke)
		if vs < len(b) && b[vs] == ':' {
			vs = SkipWS(b, vs+1)
		}
		if vs >= len(b) {
			return len(b) // cut short: no value to hand over
		}
		i = SkipWS(b, min(max(fn(i, ke, vs), vs), len(b)))
		if i < len(b) && b[i] == ',' {
			i = SkipWS(b, i+1)
		}
	}
	return min(i+1, len(b))
}
