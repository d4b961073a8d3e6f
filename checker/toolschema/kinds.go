// Package toolschema reads the JSON Schemas a tool advertises: which
// observational schema kinds they use (check.md 3.9) and why an inputSchema
// root is not an object schema (warning W16). Its functions are pure: they
// read the bytes of one tools/list tool object once and keep nothing.
package toolschema

import (
	"bytes"
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"github.com/tidwall/gjson"
)

// The observational schema kinds (check.md 3.9), as bits in report order.
const (
	kindNonDefaultDialect uint8 = 1 << iota
	kindOneOf
	kindAnyOf
	kindAllOf
	kindNot
	kindRef
	kindExternalRef
	kindUntypedProperty

	allKindBits uint8 = 1<<len(kindNames) - 1
)

// kindNames names the kind bits, lowest bit first (report order).
var kindNames = [...]string{
	"nonDefaultDialect", "oneOf", "anyOf", "allOf", "not", "ref", "externalRef", "untypedProperty",
}

// AllKinds lists the observational schema kinds in report order.
var AllKinds = []string{"nonDefaultDialect", "oneOf", "anyOf", "allOf", "not", "ref", "externalRef", "untypedProperty"}

// NonDefaultDialect is the kind of a schema whose root $schema names a
// dialect other than the one MCP assumes.
const NonDefaultDialect = "nonDefaultDialect"

// Dialect is the first root $schema among the given schemas that names a
// dialect other than MCP's default, as written; "" when none does.
func Dialect(schemas ...gjson.Result) string {
	for _, s := range schemas {
		if v := s.Get(`\$schema`); v.Type == gjson.String && v.Str != "" && strings.TrimSuffix(v.Str, "#") != defaultDialect {
			return v.Str
		}
	}
	return ""
}

// defaultDialect is the JSON Schema dialect MCP assumes when $schema is absent.
const defaultDialect = "https://json-schema.org/draft/2020-12/schema"

// redactedMarker is what mcpsnoop's redaction writes in place of a secret.
const redactedMarker = "[REDACTED]"

// maxDepth bounds how far below a schema root the walk descends, so a
// hostile, deeply nested schema cannot exhaust the stack. Nodes deeper than
// this are not visited.
const maxDepth = 256

// Kinds returns the observational schema kinds (check.md 3.9) found in a tool's
// inputSchema and outputSchema (either may be absent: gjson.Result{}), in report order:
// nonDefaultDialect, oneOf, anyOf, allOf, not, ref, externalRef, untypedProperty, each once.
// redacted is the frame's redacted flag: under redaction a $schema or $ref containing
// "[REDACTED]" is not a dialect and counts as ref.
func Kinds(input, output gjson.Result, redacted bool) []string {
	w := walker{redacted: redacted}
	for _, root := range [...]gjson.Result{input, output} {
		if root.IsObject() {
			b := unsafe.Slice(unsafe.StringData(root.Raw), len(root.Raw))
			w.walk(b, jsonwalk.SkipWS(b, 0), 0, false)
		}
	}
	if w.found == 0 {
		return nil
	}
	var kinds []string
	for i, name := range kindNames {
		if w.found&(1<<i) != 0 {
			kinds = append(kinds, name)
		}
	}
	return kinds
}

// walker collects kind bits over the visited nodes of one or more
// schemas. It walks the raw bytes once: a visited subschema is walked in
// place and everything else is skipped, so the cost is linear in the size of
// the schema however deep it nests. The bytes are only read, never kept.
type walker struct {
	redacted bool
	found    uint8
}

// walk examines the value at b[i] as a visited node and returns where it
// ends. Only object nodes carry keywords; boolean schemas and other values
// are skipped, as is any node deeper than maxDepth. property says the
// node is a child of a `properties` object, which is untyped when none of
// the typing keywords appear on it. A keyword present with any value
// "appears".
func (w *walker) walk(b []byte, i, depth int, property bool) int {
	if i >= len(b) {
		return len(b)
	}
	if b[i] != '{' || depth > maxDepth {
		return jsonwalk.SkipValue(b, i)
	}
	typed := false
	sawSchema := false
	end := jsonwalk.Members(b, i, func(ks, ke, vs int) int {
		key := b[ks:ke]
		if vs >= len(b) {
			return len(b)
		}
		if w.found == allKindBits {
			return jsonwalk.SkipValue(b, vs) // nothing left to learn
		}
		name, _ := unquote(key)
		switch name {
		case "$schema":
			ve := jsonwalk.SkipValue(b, vs)
			// Only the root's $schema names a dialect; the first one counts.
			if depth == 0 && !sawSchema {
				sawSchema = true
				w.dialect(b[vs:ve])
			}
			return ve
		case "type", "enum", "const":
			typed = true
		case "$ref":
			typed = true
			ve := jsonwalk.SkipValue(b, vs)
			w.ref(b[vs:ve])
			return ve
		case "oneOf":
			typed = true
			w.found |= kindOneOf
			return w.walkMembers(b, vs, depth+1)
		case "anyOf":
			typed = true
			w.found |= kindAnyOf
			return w.walkMembers(b, vs, depth+1)
		case "allOf":
			typed = true
			w.found |= kindAllOf
			return w.walkMembers(b, vs, depth+1)
		case "not":
			typed = true
			w.found |= kindNot
			return w.walk(b, vs, depth+1, false)
		case "prefixItems":
			return w.walkMembers(b, vs, depth+1)
		case "items", "additionalProperties", "if", "then", "else", "contains", "propertyNames":
			return w.walk(b, vs, depth+1, false)
		case "$defs", "definitions", "patternProperties", "dependentSchemas":
			return w.walkValues(b, vs, depth+1, false)
		case "properties":
			return w.walkValues(b, vs, depth+1, true)
		}
		return jsonwalk.SkipValue(b, vs)
	})
	if property && !typed {
		w.found |= kindUntypedProperty
	}
	return end
}

// walkMembers walks the members of an array of subschemas at b[i] and
// returns where the array ends.
func (w *walker) walkMembers(b []byte, i, depth int) int {
	if i >= len(b) || b[i] != '[' || depth > maxDepth {
		return jsonwalk.SkipValue(b, i)
	}
	i = jsonwalk.SkipWS(b, i+1)
	for i < len(b) && b[i] != ']' {
		next := jsonwalk.SkipWS(b, w.walk(b, i, depth, false))
		if next < len(b) && b[next] == ',' {
			next = jsonwalk.SkipWS(b, next+1)
		}
		if next <= i { // malformed: stop rather than spin
			return jsonwalk.SkipValue(b, i)
		}
		i = next
	}
	return min(i+1, len(b))
}

// walkValues walks the member values of an object of subschemas at b[i] and
// returns where the object ends.
func (w *walker) walkValues(b []byte, i, depth int, property bool) int {
	if i >= len(b) || b[i] != '{' || depth > maxDepth {
		return jsonwalk.SkipValue(b, i)
	}
	return jsonwalk.Members(b, i, func(_, _, vs int) int {
		return w.walk(b, vs, depth, property)
	})
}

// dialect judges the root $schema, given its raw value.
func (w *walker) dialect(raw []byte) {
	s, ok := unquote(raw)
	if !ok || s == "" {
		return
	}
	if w.redacted && strings.Contains(s, redactedMarker) {
		w.found |= kindRef
		return
	}
	if strings.TrimSuffix(s, "#") != defaultDialect {
		w.found |= kindNonDefaultDialect
	}
}

// ref judges a $ref, given its raw value.
func (w *walker) ref(raw []byte) {
	s, ok := unquote(raw)
	if !ok {
		return
	}
	switch {
	case w.redacted && strings.Contains(s, redactedMarker):
		w.found |= kindRef
	case strings.HasPrefix(s, "#"):
		w.found |= kindRef
	default:
		w.found |= kindExternalRef
	}
}

// unquote returns the text of the JSON string raw (quotes included), escapes
// undone; ok is false when raw is not a string. Without escapes the result
// views raw.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(inner), len(inner)), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
