package capture

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonstring"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"github.com/mcpsnoop/mcpsnoop/internal/secrets"
)

// Key rules and value patterns are applied to a message's bytes as they
// are, without decoding it into a tree: the value of a matching key is
// replaced where it stands, a string a pattern matches is re-encoded in
// place, and everything else is copied. A tree of a dense 16 MiB array
// took 1 GB and 8 s; the walk takes one copy of the message, and only when
// something changes. Members keep their order, and a key given twice has
// both values replaced (a decoded tree keeps only the last, and would let
// the first, shadowed one through).

// rawScrub is one walk over a valid JSON message.
type rawScrub struct {
	r       *Redactor
	cmdline bool // a meta frame: its strings are command-line words, scanned as text too
	raw     []byte
	out     []byte // raw[:done], rewritten; nil until something changes
	done    int
	removed map[string]bool // scalars of removed values, when headers need them
}

// scrubRaw applies r's key rules and value patterns to raw, which must be
// valid JSON. out is nil when nothing changed; removed holds the scalars
// of the values key rules removed when track is set. With cmdline (a meta
// frame, whose command is the server's command line) a string element of
// an array is also scanned as text, as a stderr line is: the words of
// `sh -c "server --token X"` are one element.
func (r *Redactor) scrubRaw(raw []byte, track, cmdline bool) (out []byte, removed map[string]bool) {
	w := rawScrub{r: r, raw: raw, cmdline: cmdline}
	if track {
		w.removed = map[string]bool{}
	}
	i := jsonwalk.SkipWS(raw, 0)
	if i < len(raw) {
		w.value(i, stateRoot, false)
	}
	if w.out == nil {
		return nil, w.removed
	}
	return append(w.out, raw[w.done:]...), w.removed
}

// replace puts repl in place of raw[start:end].
func (w *rawScrub) replace(start, end int, repl []byte) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.raw)+len(repl))
	}
	w.out = append(w.out, w.raw[w.done:start]...)
	w.out = append(w.out, repl...)
	w.done = end
}

var placeholderJSON = []byte(`"` + RedactedValue + `"`)

// value scrubs the value at raw[i], found in state, and returns where it
// ends; noPattern leaves its strings to the value patterns (the values of
// "type" and "x-mcp-header" in a schema).
func (w *rawScrub) value(i, state int, noPattern bool) int {
	raw := w.raw
	switch raw[i] {
	case '{':
		return jsonwalk.Members(raw, i, func(ks, ke, vs int) int {
			name := memberName(raw[ks:ke])
			if state != stateSchema && w.r.isKey(name) {
				ve := jsonwalk.SkipValue(raw, vs)
				if !bytes.Equal(raw[vs:ve], placeholderJSON) {
					w.noteRemoved(raw[vs:ve])
					w.replace(vs, ve, placeholderJSON)
				}
				return ve
			}
			return w.value(vs, childState(state, name), state == stateSchema && (name == "type" || name == "x-mcp-header"))
		})
	case '[':
		return w.array(i, state, noPattern)
	case '"':
		end := jsonwalk.SkipString(raw, i)
		if !noPattern {
			w.pattern(i, end)
		}
		return end
	}
	return jsonwalk.SkipValue(raw, i)
}

// array scrubs the array at raw[i]. Besides each element, a string element
// "--flag=value" whose flag names a key has its value replaced, and so has
// the element after a string element "--flag" that names one (a command
// line).
func (w *rawScrub) array(i, state int, noPattern bool) int {
	raw := w.raw
	elem := stateData
	switch state {
	case stateRoot:
		elem = stateRoot // a batch
	case stateTools:
		elem = stateTool
	case stateSchema:
		elem = stateSchema
	}
	flags := state != stateSchema && w.r.hasKeys()
	flagNext := false
	i = jsonwalk.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		var end int
		if raw[i] != '"' {
			flagNext = false
			end = w.value(i, elem, noPattern)
		} else {
			end = jsonwalk.SkipString(raw, i)
			switch {
			case !flags:
				w.pattern(i, end)
			case flagNext:
				flagNext = false
				if !bytes.Equal(raw[i:end], placeholderJSON) {
					w.noteRemoved(raw[i:end])
					w.replace(i, end, placeholderJSON)
				}
			default:
				s := jsonString(raw[i:end])
				name, val, hasVal := strings.Cut(s, "=")
				switch {
				case !strings.HasPrefix(name, "-") || !w.r.isFlag(strings.TrimLeft(name, "-")):
					if !w.cmdline {
						w.pattern(i, end)
						break
					}
					if scanned, ok := w.r.scrubCommandLine(s); ok {
						scanned, _ = w.r.scrubString(scanned)
						w.replace(i, end, jsonstring.Append(nil, scanned, false))
						break
					}
					w.pattern(i, end)
				case !hasVal:
					flagNext = true
				case val != RedactedValue:
					if w.removed != nil {
						w.removed[val] = true
					}
					w.replace(i, end, jsonstring.Append(nil, name+"="+RedactedValue, false))
				}
			}
		}
		i = jsonwalk.SkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonwalk.SkipWS(raw, i+1)
		}
	}
	return min(i+1, len(raw))
}

// pattern applies the value patterns to the string raw[start:end].
func (w *rawScrub) pattern(start, end int) {
	if !w.r.hasPatterns() {
		return
	}
	q := w.raw[start:end]
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && !w.r.mayMatch(inner) {
		return // no escape to undo, and no pattern matches the bytes
	}
	s := jsonString(q)
	if out, ok := w.r.scrubString(s); ok {
		w.replace(start, end, jsonstring.Append(nil, out, false))
	}
}

// noteRemoved records the scalars of a removed value, for the headers.
func (w *rawScrub) noteRemoved(v []byte) {
	if w.removed != nil {
		rawScalars(v, func(s string) { w.removed[s] = true })
	}
}

// rawScalars calls fn with the text of every string (decoded), number (as
// written) and boolean in the valid JSON value v.
func rawScalars(v []byte, fn func(string)) {
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			end := jsonwalk.SkipString(v, i)
			// A member name is no scalar: skip it.
			if j := jsonwalk.SkipWS(v, end); j >= len(v) || v[j] != ':' {
				fn(jsonString(v[i:end]))
			}
			i = end
		case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f':
			end := jsonwalk.SkipValue(v, i)
			fn(string(v[i:end]))
			i = end
		default:
			i++
		}
	}
}

// jsonString decodes the valid JSON string q (quotes included) as
// encoding/json does (an invalid UTF-8 byte becomes U+FFFD).
func jsonString(q []byte) string {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(q, &s)
	return s
}

// scalarsPresent reports which of want occur as a scalar of the valid
// JSON value v.
func scalarsPresent(v []byte, want map[string]bool) map[string]bool {
	found := map[string]bool{}
	if len(want) == 0 {
		return found
	}
	rawScalars(v, func(s string) {
		if want[s] {
			found[s] = true
		}
	})
	return found
}

// mayMatch reports whether a value pattern could match the bytes b (a
// string's content without escapes), without converting them.
func (r *Redactor) mayMatch(b []byte) bool {
	for _, re := range r.values {
		if re.Match(b) {
			return true
		}
	}
	// A view, not a copy: b is only read, and only during the call.
	return r.secrets && secrets.Contains(unsafe.String(unsafe.SliceData(b), len(b)))
}
