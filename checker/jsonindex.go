package checker

import "bytes"

// Fast, non-validating walks over JSON the reader has already validated.
// Most of a log's bytes sit inside strings (tool results), and a string is
// skipped with bytes.IndexByte, so a walk costs little more than a memchr.

// skipValue returns where the value starting at b[i] ends.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
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

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	start := i + 1
	i = start
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
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
}

func skipComposite(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
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

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// members calls fn for each member of the object at b[i] with the member's
// quoted key and the index of its value; fn returns where the value ends (it
// may walk into the value itself, or call skipValue). members returns the
// index just past the object.
func members(b []byte, i int, fn func(key []byte, vs int) int) int {
	i = skipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		key := b[i:ke]
		vs := skipWS(b, ke)
		vs = skipWS(b, vs+1) // past ':'
		i = skipWS(b, fn(key, vs))
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return min(i+1, len(b))
}
