package checker

// W15 and W45: x-mcp-header annotations on advertised tools and the Mcp-Param-* headers of tools/call (check.md 3.3 B and E).

import (
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
	"golang.org/x/net/http/httpguts"
)

// paramHeaderState is what these rules remember about a session: the
// x-mcp-header bindings of each tool its tools/list answers advertised over
// HTTP. Like the inventory, a listing without a cursor replaces the set and
// a cursored page extends it, the first definition of a name winning.
type paramHeaderState struct {
	// tools maps a tool name to its valid bindings, sorted by header name;
	// nil when the tool has none or its annotations break a constraint.
	tools map[string][]paramBinding
	// usable counts the tools with at least one binding, so that tools/call
	// frames of sessions without any skip the rule at once.
	usable int
}

// paramBinding is one valid x-mcp-header annotation.
type paramBinding struct {
	header    string   // the name as annotated, without the Mcp-Param- prefix
	lowerFull string   // "mcp-param-" + lower-cased header, for matching
	path      []string // property names from the arguments object down
	dotted    string   // path joined with "."
	typ       string   // string, integer or boolean
}

const paramHeaderPrefix = "Mcp-Param-"

// xMcpHeaderRules reads a tools/list answer's x-mcp-header annotations: it
// records each added tool's valid bindings for W45 and warns (W15) about
// tools whose annotations break a constraint.
func (s *session) xMcpHeaderRules(fc *frameCtx, c *call) {
	f := fc.f
	m := &fc.msg
	if f.Transport != capture.TransportHTTP {
		return // Mcp-Param headers exist on HTTP only: nothing to check later
	}
	if m.hasError || !m.hasResult || !m.result.IsObject() {
		return
	}
	st := &s.params
	if !c.cursored || st.tools == nil {
		st.tools = map[string][]paramBinding{}
		st.usable = 0
	}
	report := atLeast20260728(c.revision)
	m.resultField("tools").ForEach(func(_, t gjson.Result) bool {
		name := t.Get("name")
		if !t.IsObject() || name.Type != gjson.String {
			return true
		}
		if _, seen := st.tools[name.Str]; seen {
			return true
		}
		bindings, violation := paramBindings(t.Get("inputSchema"), f.Redacted)
		st.tools[clone(name.Str)] = bindings
		if len(bindings) > 0 {
			st.usable++
		}
		if violation != "" && report {
			fc.warn("W15", "tool <name> declares <reason>, so its Mcp-Param headers are not checked",
				"tool "+strconv.Quote(name.Str)+" declares "+violation+", so its Mcp-Param headers are not checked")
		}
		return true
	})
}

// paramBindings resolves an inputSchema's x-mcp-header annotations: the
// valid bindings sorted by header name (case-insensitively), or the first
// constraint one breaks. An annotation mcpsnoop's redaction scrubbed, or on
// a property of no readable type, binds nothing and breaks nothing.
func paramBindings(schema gjson.Result, redacted bool) ([]paramBinding, string) {
	if !schema.IsObject() {
		return nil, ""
	}
	w := bindingWalk{seen: map[string]bool{}, redacted: redacted}
	if w.walk(member(schema, "properties"), nil); w.violation != "" {
		return nil, w.violation
	}
	if v := unreachableAnnotation(schema, ""); v != "" {
		return nil, v
	}
	sort.SliceStable(w.out, func(i, j int) bool {
		a, b := strings.ToLower(w.out[i].header), strings.ToLower(w.out[j].header)
		if a != b {
			return a < b
		}
		return w.out[i].dotted < w.out[j].dotted
	})
	return w.out, ""
}

type bindingWalk struct {
	seen      map[string]bool // lower-cased header names already bound
	redacted  bool
	out       []paramBinding
	violation string
}

// walk visits the properties reachable from the root through nested
// "properties" only, in sorted name order, stopping at the first violation.
func (w *bindingWalk) walk(props gjson.Result, prefix []string) {
	if !props.IsObject() {
		return
	}
	type prop struct {
		name   string
		schema gjson.Result
	}
	var list []prop
	names := map[string]bool{}
	props.ForEach(func(k, v gjson.Result) bool {
		if !names[k.Str] { // a repeated member name: the first one counts
			names[k.Str] = true
			list = append(list, prop{k.Str, v})
		}
		return true
	})
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	for _, p := range list {
		if !p.schema.IsObject() {
			continue // a boolean subschema, or one redaction replaced
		}
		path := append(append([]string(nil), prefix...), clone(p.name))
		if h := member(p.schema, "x-mcp-header"); h.Exists() && h.Type != gjson.Null {
			if w.annotation(h, p.schema, path); w.violation != "" {
				return
			}
		}
		if w.walk(member(p.schema, "properties"), path); w.violation != "" {
			return
		}
	}
}

// annotation checks one x-mcp-header and binds it when it is valid.
func (w *bindingWalk) annotation(h, schema gjson.Result, path []string) {
	dotted := strings.Join(path, ".")
	on := " on property " + strconv.Quote(dotted)
	if h.Type != gjson.String {
		w.violation = "an x-mcp-header" + on + " that is not a string"
		return
	}
	name := h.Str
	if w.redacted && name == redactedMarker {
		return // unreadable, not wrong
	}
	switch {
	case name == "":
		w.violation = "an empty x-mcp-header" + on
		return
	case !httpguts.ValidHeaderFieldName(name): // an RFC 9110 token
		w.violation = "x-mcp-header " + strconv.Quote(name) + on + ", which is not a valid header field name"
		return
	}
	lower := strings.ToLower(name)
	if w.seen[lower] {
		w.violation = "x-mcp-header " + strconv.Quote(name) + " on more than one property"
		return
	}
	w.seen[lower] = true
	typ, ok := schemaType(schema)
	if !ok {
		return // no readable type: nothing to compare a header with
	}
	if primitiveNames[typ] == "" {
		w.violation = "x-mcp-header " + strconv.Quote(name) + on + ", whose type " + strconv.Quote(typ) +
			" is not one of string, integer or boolean"
		return
	}
	name = clone(name)
	w.out = append(w.out, paramBinding{
		header: name, lowerFull: "mcp-param-" + strings.ToLower(name),
		path: path, dotted: dotted, typ: primitiveNames[typ],
	})
}

// primitiveNames are the types an x-mcp-header may sit on, as constants that
// do not alias a frame's buffer.
var primitiveNames = map[string]string{"string": "string", "integer": "integer", "boolean": "boolean"}

// schemaType is the type a property schema declares: its "type", a
// [T, "null"] union, or the one non-null branch of an anyOf or oneOf.
func schemaType(schema gjson.Result) (string, bool) {
	if t := member(schema, "type"); t.Exists() && t.Type != gjson.Null {
		return readType(t)
	}
	for _, kw := range [...]string{"anyOf", "oneOf"} {
		branches := member(schema, kw)
		if !branches.IsArray() {
			continue
		}
		var only gjson.Result
		n := 0
		branches.ForEach(func(_, b gjson.Result) bool {
			if t, ok := readType(member(b, "type")); ok && t == "null" {
				return true
			}
			only = b
			n++
			return n < 2
		})
		if n == 1 && only.IsObject() {
			return schemaType(only)
		}
		return "", false
	}
	return "", false
}

// readType reads a "type" value: a string, or a union of one type with
// "null".
func readType(t gjson.Result) (string, bool) {
	switch {
	case t.Type == gjson.String:
		return t.Str, true
	case t.IsArray():
		named, n, ok := "", 0, true
		t.ForEach(func(_, v gjson.Result) bool {
			if v.Type != gjson.String {
				ok = false
				return false
			}
			if v.Str != "null" {
				named = v.Str
				n++
			}
			return true
		})
		if ok && n == 1 {
			return named, true
		}
	}
	return "", false
}

// dataKeywords hold instance data, not subschemas: an "x-mcp-header" under
// them is not an annotation.
var dataKeywords = map[string]bool{"default": true, "const": true, "examples": true, "enum": true}

// unreachableAnnotation finds an x-mcp-header that only something other than
// nested "properties" leads to, and names the keyword that left the chain.
// Keys inside "properties" are parameter names, so they are stepped over.
func unreachableAnnotation(node gjson.Result, under string) string {
	switch {
	case node.IsObject():
		if under != "" {
			if h := member(node, "x-mcp-header"); h.Exists() && h.Type != gjson.Null {
				return "an x-mcp-header under " + strconv.Quote(under) +
					", which 2026-07-28 does not allow in the chain to an annotated property"
			}
		}
		for _, kv := range sortedMembers(node) {
			switch {
			case kv.key == "properties" && kv.val.IsObject():
				for _, p := range sortedMembers(kv.val) {
					if v := unreachableAnnotation(p.val, under); v != "" {
						return v
					}
				}
			case kv.key == "x-mcp-header", dataKeywords[kv.key]:
			default:
				reach := under
				if reach == "" {
					reach = kv.key
				}
				if v := unreachableAnnotation(kv.val, reach); v != "" {
					return v
				}
			}
		}
	case node.IsArray():
		var found string
		node.ForEach(func(_, v gjson.Result) bool {
			found = unreachableAnnotation(v, under)
			return found == ""
		})
		return found
	}
	return ""
}

type keyValue struct {
	key string
	val gjson.Result
}

// sortedMembers lists an object's members by name; a repeated name keeps its
// first value.
func sortedMembers(obj gjson.Result) []keyValue {
	var out []keyValue
	obj.ForEach(func(k, v gjson.Result) bool {
		out = append(out, keyValue{k.Str, v})
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// member returns obj's member called name, compared literally.
func member(obj gjson.Result, name string) gjson.Result {
	if !obj.IsObject() {
		return gjson.Result{}
	}
	var found gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == name {
			found = v
			return false
		}
		return true
	})
	return found
}

// paramHeaderRules applies W45: each Mcp-Param header of an HTTP tools/call
// against the argument its advertised binding names.
func (s *session) paramHeaderRules(fc *frameCtx) {
	if s.params.usable == 0 {
		return
	}
	m := &fc.msg
	f := fc.f
	if m.kind != kindRequest || m.method != "tools/call" || f.Transport != capture.TransportHTTP ||
		f.Direction != capture.ClientToServer || f.Batch {
		return
	}
	name := m.paramField("name")
	if name.Type != gjson.String {
		return
	}
	bindings := s.params.tools[name.Str]
	if len(bindings) == 0 {
		return
	}
	if rev, _ := revisionOf(requestMeta(m), f); !atLeast20260728(rev) {
		return
	}
	// Which header values mcpsnoop scrubbed itself: by their flag, or in a
	// capture that predates the flag, by the placeholder on a redacted frame.
	flagged := false
	for _, h := range f.McpParamHeaders {
		flagged = flagged || h.Redacted
	}
	scrubbed := func(h capture.ParamHeader) bool {
		return h.Redacted || (!flagged && f.Redacted && h.Value == redactedMarker)
	}
	args := m.paramField("arguments")
	var values []string
	for _, b := range bindings {
		values = values[:0]
		anyScrubbed := false
		for _, h := range f.McpParamHeaders {
			if strings.ToLower(h.Name) == b.lowerFull {
				values = append(values, h.Value)
				anyScrubbed = anyScrubbed || scrubbed(h)
			}
		}
		if text, kind := checkBinding(b, values, anyScrubbed, args, f.Redacted); text != "" {
			fc.warn("W45", kind, text)
			fc.mismatch = true
		}
	}
}

// checkBinding judges one binding; it returns the warning text and template,
// or "" when the header agrees with the body or cannot be judged.
func checkBinding(b paramBinding, values []string, scrubbed bool, args gjson.Result, redacted bool) (string, string) {
	full := paramHeaderPrefix + b.header
	path := strconv.Quote(b.dotted)
	arg, found, hidden := lookupArgument(args, b.path, redacted)
	if !found || arg.Type == gjson.Null {
		if len(values) > 0 && !hidden {
			return "routing header " + full + " is present but body parameter " + path + " is absent or null",
				"routing header <H> is present but body parameter <path> is absent or null"
		}
		return "", ""
	}
	if len(values) == 0 {
		return "required routing header " + full + " is missing for body parameter " + path,
			"required routing header <H> is missing for body parameter <path>"
	}
	if scrubbed || (redacted && arg.Type == gjson.String && arg.Str == redactedMarker) {
		return "", "" // one side is mcpsnoop's placeholder: unverifiable, not wrong
	}
	if len(values) > 1 && !headerValuesAgree(values, b.typ) {
		return "routing header " + full + " is repeated with conflicting values, so body parameter " + path + " cannot be checked",
			"routing header <H> is repeated with conflicting values, so body parameter <path> cannot be checked"
	}
	header, ok := decodeHeaderValue(values[0])
	if !ok {
		return "routing header " + full + " has invalid Base64 encoding",
			"routing header <H> has invalid Base64 encoding"
	}
	body, why := bodyPrimitive(arg, b.typ)
	if why != "" {
		return "routing header " + full + " cannot be compared because body parameter " + path + " " + why,
			"routing header <H> cannot be compared because body parameter <path> <why>"
	}
	if b.typ == "integer" {
		n := parseInteger(header)
		if n.integer && !n.safe {
			return "routing header " + full + " " + strconv.Quote(header) + " " + outsideSafeRange,
				"routing header <H> <value> " + outsideSafeRange
		}
		if n.safe && strconv.FormatInt(n.value, 10) == body {
			return "", ""
		}
	} else if header == body {
		return "", ""
	}
	return "routing header " + full + " " + strconv.Quote(header) + " disagrees with body parameter " + path + " " + strconv.Quote(body),
		"routing header <H> <header> disagrees with body parameter <path> <body>"
}

const outsideSafeRange = "is outside the safe integer range x-mcp-header requires"

// lookupArgument walks path through the call's arguments. hidden reports
// that, on a redacted frame, the walk stopped at an ancestor mcpsnoop
// replaced with its placeholder.
func lookupArgument(args gjson.Result, path []string, redacted bool) (v gjson.Result, found, hidden bool) {
	cur := args
	for _, name := range path {
		if !cur.IsObject() {
			return gjson.Result{}, false, redacted && cur.Type == gjson.String && cur.Str == redactedMarker
		}
		cur = member(cur, name)
		if !cur.Exists() {
			return gjson.Result{}, false, false
		}
	}
	return cur, true, false
}

// bodyPrimitive renders an argument the way a header carries it, or says
// why it is not of the binding's type.
func bodyPrimitive(arg gjson.Result, typ string) (string, string) {
	switch typ {
	case "string":
		if arg.Type == gjson.String {
			return arg.Str, ""
		}
		return "", "is not a valid string"
	case "boolean":
		switch arg.Type {
		case gjson.True:
			return "true", ""
		case gjson.False:
			return "false", ""
		}
		return "", "is not a valid boolean"
	default: // integer
		if arg.Type != gjson.Number {
			return "", "is not a valid integer"
		}
		n := parseInteger(arg.Raw)
		switch {
		case !n.integer:
			return "", "is not a valid integer"
		case !n.safe:
			return "", outsideSafeRange
		}
		return strconv.FormatInt(n.value, 10), ""
	}
}

// headerValuesAgree reports whether the values of a repeated header mean the
// same thing once decoded; integers compare numerically.
func headerValuesAgree(values []string, typ string) bool {
	first, ok := decodeHeaderValue(values[0])
	if !ok {
		return false
	}
	firstInt := parseInteger(first)
	for _, v := range values[1:] {
		next, ok := decodeHeaderValue(v)
		if !ok {
			return false
		}
		if typ == "integer" && firstInt.safe {
			n := parseInteger(next)
			if !n.safe || n.value != firstInt.value {
				return false
			}
			continue
		}
		if next != first {
			return false
		}
	}
	return true
}

// maxSafeInteger is 2^53-1, the largest integer x-mcp-header allows.
const maxSafeInteger = 1<<53 - 1

// parsedInteger is a decimal number read exactly: integer when its value is
// whole, safe when it also lies within ±(2^53-1) (value is set then).
type parsedInteger struct {
	value         int64
	integer, safe bool
}

// parseInteger reads a decimal number ([+-]digits[.digits][e[+-]digits],
// spaces around it ignored) by value, so 42, 42.0, 4.2e1 and 0042 are all
// 42. It never expands a huge exponent.
func parseInteger(s string) parsedInteger {
	s = strings.Trim(s, " \t")
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte // significant digits, integer part then fraction
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	intDigits := s[start:i]
	fracDigits := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		fracDigits = s[fs:i]
	}
	if intDigits == "" && fracDigits == "" {
		return parsedInteger{}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		sign := 1
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			if s[i] == '-' {
				sign = -1
			}
			i++
		}
		es := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if exp < 1<<20 {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == es {
			return parsedInteger{}
		}
		exp *= sign
	}
	if i != len(s) {
		return parsedInteger{}
	}
	digits = append(append(digits, intDigits...), fracDigits...)
	exp -= len(fracDigits)
	// Strip leading zeros, then trailing zeros into the exponent.
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return parsedInteger{integer: true, safe: true}
	}
	if exp < 0 {
		return parsedInteger{} // a fraction remains
	}
	if len(digits)+exp > 16 {
		return parsedInteger{integer: true} // 2^53-1 has 16 digits
	}
	var v int64
	for _, d := range digits {
		v = v*10 + int64(d-'0')
	}
	for ; exp > 0; exp-- {
		v *= 10
	}
	if v > maxSafeInteger {
		return parsedInteger{integer: true}
	}
	if neg {
		v = -v
	}
	return parsedInteger{value: v, integer: true, safe: true}
}
