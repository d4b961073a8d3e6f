package schemacheck

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
)

// longString is the length past which a string is handed to the
// validator as a prefix of its raw, still-escaped text: its content
// cannot matter, as no MCP schema states a pattern, a length, a content
// encoding or an asserted format for a string, and no const or enum is
// anywhere near this long (TestSchemasConstrainNoStringContent keeps that
// true). The validator copies every string it checks, so a 50 KB tool
// result handed whole would cost 50 KB of garbage.
const longString = 256

// decoder turns JSON that has already been parsed once (a frame's raw
// message) into the values the validator reads: map[string]any, []any,
// string, json.Number, bool and nil. Strings and numbers are views of the
// frame's bytes, valid while the frame is: nothing decoded outlives a call
// to Validate.
type decoder struct {
	b []byte
	// values counts the values decoded; past maxValues the rest of the
	// message is not (see cut).
	values int
	// path is the pointer tokens of the container being decoded; cut
	// holds the pointers of the containers whose members were left out
	// once the budget ran out, first the innermost.
	path []pathTok
	cut  []string
}

// pathTok is one step of a pointer: a member's key, or an element's index
// (kept as a number: most messages are never cut, and their paths never
// written out).
type pathTok struct {
	key string
	idx int // -1 for a key
}

// maxValues is how many values of one message the validator is handed.
// Validating costs schema-node visits in proportion (a few per value, more
// under unions), and a message that breaks its schema everywhere costs an
// issue per value besides: a 12 MB result of 800,000 bad items took the
// validator 35 s and 2.2 GB. Past the budget the message is validated as
// far as it was decoded, and its finding says where validation stopped.
const maxValues = 100_000

// spent reports whether the budget is spent, counting one more value.
func (d *decoder) spent() bool {
	d.values++
	return d.values > maxValues
}

// cutHere records that the container being decoded lost members.
func (d *decoder) cutHere() {
	tokens := make([]string, len(d.path))
	for i, t := range d.path {
		tokens[i] = t.key
		if t.idx >= 0 {
			tokens[i] = strconv.Itoa(t.idx)
		}
	}
	d.cut = append(d.cut, pointer(tokens))
}

// message decodes the message object at the start of b. The member named
// paramsSkip of params, and resultSkip of result, are decoded as empty
// values of their type: bodies the schema leaves open (tools/call
// arguments, structuredContent), which would cost time to decode and
// nothing to validate.
func (d *decoder) message(paramsSkip, resultSkip string) any {
	i := jsonwalk.SkipWS(d.b, 0)
	if i >= len(d.b) {
		return nil
	}
	if d.b[i] != '{' {
		v, _ := d.value(i)
		return v
	}
	m := map[string]any{}
	jsonwalk.Members(d.b, i, func(ks, ke, vs int) int {
		key := d.key(ks, ke)
		var v any
		var end int
		d.path = append(d.path, pathTok{key: key, idx: -1})
		switch {
		case key == "id" && isInteger(d.b[vs:jsonwalk.SkipValue(d.b, vs)]):
			v, end = integerID, jsonwalk.SkipValue(d.b, vs)
		case key == "params" && d.b[vs] == '{':
			v, end = d.object(vs, paramsSkip)
		case key == "result" && d.b[vs] == '{':
			v, end = d.object(vs, resultSkip)
		default:
			v, end = d.value(vs)
		}
		d.path = d.path[:len(d.path)-1]
		m[key] = v
		return end
	})
	if d.values > maxValues {
		d.cutHere() // the message itself lost what lies past the budget
	}
	return m
}

// value decodes the value at b[i] and returns where it ends.
func (d *decoder) value(i int) (any, int) {
	switch d.b[i] {
	case '{':
		return d.object(i, "")
	case '[':
		return d.array(i)
	case '"':
		return d.str(i)
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	end := jsonwalk.SkipValue(d.b, i)
	return json.Number(view(d.b[i:end])), end
}

// object decodes an object; its member named skip (if any) becomes an
// empty value of its own type.
func (d *decoder) object(i int, skip string) (any, int) {
	m := map[string]any{}
	cut := false
	end := jsonwalk.Members(d.b, i, func(ks, ke, vs int) int {
		if cut || d.spent() {
			cut = true
			return jsonwalk.SkipValue(d.b, vs)
		}
		key := d.key(ks, ke)
		if skip != "" && key == skip {
			v, end := d.stub(vs)
			m[key] = v
			return end
		}
		d.path = append(d.path, pathTok{key: key, idx: -1})
		v, end := d.value(vs)
		d.path = d.path[:len(d.path)-1]
		m[key] = v
		return end
	})
	if cut {
		d.cutHere()
	}
	return m, end
}

// stub is the empty value of the type of the value at b[i].
func (d *decoder) stub(i int) (any, int) {
	switch d.b[i] {
	case '{':
		return map[string]any{}, jsonwalk.SkipValue(d.b, i)
	case '[':
		return []any{}, jsonwalk.SkipValue(d.b, i)
	}
	return d.value(i)
}

func (d *decoder) array(i int) (any, int) {
	out := []any{}
	start := i
	i = jsonwalk.SkipWS(d.b, i+1)
	for i < len(d.b) && d.b[i] != ']' {
		if d.spent() {
			d.cutHere()
			return out, jsonwalk.SkipValue(d.b, start)
		}
		d.path = append(d.path, pathTok{idx: len(out)})
		v, end := d.value(i)
		d.path = d.path[:len(d.path)-1]
		out = append(out, v)
		i = jsonwalk.SkipWS(d.b, end)
		if i < len(d.b) && d.b[i] == ',' {
			i = jsonwalk.SkipWS(d.b, i+1)
		}
	}
	return out, min(i+1, len(d.b))
}

func (d *decoder) str(i int) (any, int) {
	end := jsonwalk.SkipString(d.b, i)
	body := d.b[i+1 : max(end-1, i+1)]
	if len(body) > longString {
		return view(body[:longString]), end
	}
	if bytes.IndexByte(body, '\\') < 0 {
		return view(body), end
	}
	var s string
	if json.Unmarshal(d.b[i:end], &s) != nil {
		return view(body), end
	}
	return s, end
}

// key decodes an object key (quotes included in b[ks:ke]).
func (d *decoder) key(ks, ke int) string {
	body := d.b[ks+1 : max(ke-1, ks+1)]
	if bytes.IndexByte(body, '\\') < 0 {
		return view(body)
	}
	var s string
	if json.Unmarshal(d.b[ks:ke], &s) != nil {
		return view(body)
	}
	return s
}

// view is b as a string without a copy.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// integerID stands in for a message's integer id. Every revision types the
// id as a RequestId, a string or an integer, so an integer id is valid
// whatever its value, and a string stand-in is too; the validator would
// otherwise fail the string branch and parse the number as a rational on
// every message.
const integerID = "(integer id)"

// isInteger reports whether a JSON number is written as an integer.
func isInteger(num []byte) bool {
	if len(num) == 0 {
		return false
	}
	for i, c := range num {
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return num[len(num)-1] != '-'
}
