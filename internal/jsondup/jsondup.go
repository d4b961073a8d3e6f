// Package jsondup finds and resolves member names repeated within one JSON
// object. JSON leaves a repeated name's meaning open; the JavaScript, Go
// and Python JSON decoders MCP servers run all take the last occurrence,
// so mcpsnoop reads messages that way too: a request whose params say
// {"name":"safe","name":"delete_repo"} calls delete_repo.
package jsondup

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
)

// maxDepth bounds the nesting walked; deeper values are not looked into.
const maxDepth = 10000

// smallObject is how many member names an object holds before the walk
// keeps them in a map instead of a slice.
const smallObject = 16

// Has reports whether any object in the JSON value raw (valid JSON) names
// a member twice, comparing names as decoded. One walk over the bytes that
// allocates nothing for objects of up to smallObject plain names: it runs
// on every frame a check reads.
func Has(raw []byte) bool {
	i := jsonwalk.SkipWS(raw, 0)
	if i >= len(raw) {
		return false
	}
	dup, _ := hasIn(raw, i, 0)
	return dup
}

// hasIn reports a repeated name in the value at raw[i] or below it, and
// where the value ends.
func hasIn(raw []byte, i, depth int) (bool, int) {
	if depth > maxDepth {
		return false, jsonwalk.SkipValue(raw, i)
	}
	switch raw[i] {
	case '{':
		var small [smallObject][]byte
		n := 0
		var names map[string]bool // past smallObject, or a name to decode
		dup := false
		end := jsonwalk.Members(raw, i, func(ks, ke, vs int) int {
			if dup {
				return jsonwalk.SkipValue(raw, vs)
			}
			key := raw[ks+1 : ke-1]
			if names == nil && n < smallObject && plain(key) {
				for _, k := range small[:n] {
					if bytes.Equal(k, key) {
						dup = true
						return jsonwalk.SkipValue(raw, vs)
					}
				}
				small[n] = key
				n++
			} else {
				if names == nil {
					names = make(map[string]bool, 2*smallObject)
					for _, k := range small[:n] {
						names[string(k)] = true
					}
				}
				name := decodedName(raw[ks:ke])
				if names[name] {
					dup = true
					return jsonwalk.SkipValue(raw, vs)
				}
				names[name] = true
			}
			var ve int
			dup, ve = hasIn(raw, vs, depth+1)
			return ve
		})
		return dup, end
	case '[':
		i = jsonwalk.SkipWS(raw, i+1)
		for i < len(raw) && raw[i] != ']' {
			dup, ve := hasIn(raw, i, depth+1)
			if dup {
				return true, ve
			}
			i = jsonwalk.SkipWS(raw, ve)
			if i < len(raw) && raw[i] == ',' {
				i = jsonwalk.SkipWS(raw, i+1)
			}
		}
		return false, min(i+1, len(raw))
	}
	return false, jsonwalk.SkipValue(raw, i)
}

// plain reports a name whose bytes are its decoded form: no escape, ASCII.
func plain(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Repeated is the first member name (by position in raw) that its object
// repeats; ok is false when none does.
func Repeated(raw []byte) (name string, ok bool) {
	i := jsonwalk.SkipWS(raw, 0)
	if i >= len(raw) {
		return "", false
	}
	at := len(raw)
	walk(raw, i, 0, func(n string, ks, _ int, _ bool) {
		if ks < at {
			name, at, ok = n, ks, true
		}
	})
	return name, ok
}

// LastWins returns raw with every member whose name a later member of the
// same object repeats left out, so that any reader, first-occurrence or
// last, sees what the decoders servers run see. raw itself is returned
// when nothing repeats.
func LastWins(raw []byte) []byte {
	i := jsonwalk.SkipWS(raw, 0)
	if i >= len(raw) {
		return raw
	}
	type span struct{ start, end int }
	var drop []span
	walk(raw, i, 0, func(_ string, ks, ve int, shadowed bool) {
		if shadowed {
			drop = append(drop, span{ks, ve})
		}
	})
	if len(drop) == 0 {
		return raw
	}
	// Nested members are reported before the member holding them.
	slices.SortFunc(drop, func(a, b span) int { return a.start - b.start })
	out := make([]byte, 0, len(raw))
	at := 0
	for _, d := range drop {
		if d.start < at {
			continue // inside a member already left out
		}
		out = append(out, raw[at:d.start]...)
		at = d.end
		// The member's comma: the one after it, else the one before.
		j := jsonwalk.SkipWS(raw, at)
		if j < len(raw) && raw[j] == ',' {
			at = jsonwalk.SkipWS(raw, j+1)
		} else if k := lastNonSpace(out); k >= 0 && out[k] == ',' {
			out = out[:k]
		}
	}
	return append(out, raw[at:]...)
}

func lastNonSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return i
	}
	return -1
}

// walk visits the value at raw[i] and everything nested in it; for every
// object member whose name repeats in its object, it calls seen with the
// member's extent (name start to value end) and whether a later member of
// the same name shadows it. It returns where the value ends.
func walk(raw []byte, i, depth int, seen func(name string, ks, ve int, shadowed bool)) int {
	if depth > maxDepth {
		return jsonwalk.SkipValue(raw, i)
	}
	switch raw[i] {
	case '{':
		type member struct {
			name       string
			ks, vs, ve int
		}
		var members []member
		end := jsonwalk.Members(raw, i, func(ks, ke, vs int) int {
			ve := walk(raw, vs, depth+1, seen)
			members = append(members, member{decodedName(raw[ks:ke]), ks, vs, ve})
			return ve
		})
		reportRepeats(len(members), func(k int) string { return members[k].name }, func(k int, shadowed bool) {
			seen(members[k].name, members[k].ks, members[k].ve, shadowed)
		})
		return end
	case '[':
		i = jsonwalk.SkipWS(raw, i+1)
		for i < len(raw) && raw[i] != ']' {
			i = jsonwalk.SkipWS(raw, walk(raw, i, depth+1, seen))
			if i < len(raw) && raw[i] == ',' {
				i = jsonwalk.SkipWS(raw, i+1)
			}
		}
		return min(i+1, len(raw))
	}
	return jsonwalk.SkipValue(raw, i)
}

// reportRepeats calls report for every member of an object whose name
// another member repeats, saying whether a later one shadows it.
func reportRepeats(n int, name func(int) string, report func(k int, shadowed bool)) {
	if n < 2 {
		return
	}
	last := make(map[string]int, min(n, smallObject))
	for k := range n {
		last[name(k)] = k
	}
	if len(last) == n {
		return
	}
	count := make(map[string]int, len(last))
	for k := range n {
		count[name(k)]++
	}
	for k := range n {
		if nm := name(k); count[nm] > 1 {
			report(k, last[nm] != k)
		}
	}
}

// decodedName is a quoted member name as a decoder reads it: escapes
// undone, each invalid byte a U+FFFD.
func decodedName(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var name string
	if err := json.Unmarshal(quoted, &name); err != nil {
		return string(quoted)
	}
	return name
}
