package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The observational schema kinds (check.md 3.9), as bits in report order.
const (
	schemaNonDefaultDialect uint8 = 1 << iota
	schemaOneOf
	schemaAnyOf
	schemaAllOf
	schemaNot
	schemaRef
	schemaExternalRef
	schemaUntypedProperty

	schemaAllKinds uint8 = 1<<len(schemaKindNames) - 1
)

// schemaKindNames names the kind bits, lowest bit first (report order).
var schemaKindNames = [...]string{
	"nonDefaultDialect", "oneOf", "anyOf", "allOf", "not", "ref", "externalRef", "untypedProperty",
}

// schemaDefaultDialect is the JSON Schema dialect MCP assumes when $schema is absent.
const schemaDefaultDialect = "https://json-schema.org/draft/2020-12/schema"

// schemaRedactedMarker is what mcpsnoop's redaction writes in place of a secret.
const schemaRedactedMarker = "[REDACTED]"

// schemaMaxDepth bounds how far below a schema root the walk descends, so a
// hostile, deeply nested schema cannot exhaust the stack. Nodes deeper than
// this are not visited.
const schemaMaxDepth = 256

// schemaKinds returns the observational schema kinds (check.md 3.9) found in a tool's
// inputSchema and outputSchema (either may be absent: gjson.Result{}), in report order:
// nonDefaultDialect, oneOf, anyOf, allOf, not, ref, externalRef, untypedProperty, each once.
// redacted is the frame's redacted flag: under redaction a $schema or $ref containing
// "[REDACTED]" is not a dialect and counts as ref.
func schemaKinds(input, output gjson.Result, redacted bool) []string {
	w := schemaWalk{redacted: redacted}
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
	for i, name := range schemaKindNames {
		if w.found&(1<<i) != 0 {
			kinds = append(kinds, name)
		}
	}
	return kinds
}

// schemaWalk collects kind bits over the visited nodes of one or more
// schemas. It walks the raw bytes once: a visited subschema is walked in
// place and everything else is skipped, so the cost is linear in the size of
// the schema however deep it nests. The bytes are only read, never kept.
type schemaWalk struct {
	redacted bool
	found    uint8
}

// walk examines the value at b[i] as a visited node and returns where it
// ends. Only object nodes carry keywords; boolean schemas and other values
// are skipped, as is any node deeper than schemaMaxDepth. property says the
// node is a child of a `properties` object, which is untyped when none of
// the typing keywords appear on it. A keyword present with any value
// "appears".
func (w *schemaWalk) walk(b []byte, i, depth int, property bool) int {
	if i >= len(b) {
		return len(b)
	}
	if b[i] != '{' || depth > schemaMaxDepth {
		return jsonwalk.SkipValue(b, i)
	}
	typed := false
	sawSchema := false
	end := jsonwalk.Members(b, i, func(ks, ke, vs int) int {
		key := b[ks:ke]
		if vs >= len(b) {
			return len(b)
		}
		if w.found == schemaAllKinds {
			return jsonwalk.SkipValue(b, vs) // nothing left to learn
		}
		name, _ := schemaUnquote(key)
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
			w.found |= schemaOneOf
			return w.walkMembers(b, vs, depth+1)
		case "anyOf":
			typed = true
			w.found |= schemaAnyOf
			return w.walkMembers(b, vs, depth+1)
		case "allOf":
			typed = true
			w.found |= schemaAllOf
			return w.walkMembers(b, vs, depth+1)
		case "not":
			typed = true
			w.found |= schemaNot
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
		w.found |= schemaUntypedProperty
	}
	return end
}

// walkMembers walks the members of an array of subschemas at b[i] and
// returns where the array ends.
func (w *schemaWalk) walkMembers(b []byte, i, depth int) int {
	if i >= len(b) || b[i] != '[' || depth > schemaMaxDepth {
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
func (w *schemaWalk) walkValues(b []byte, i, depth int, property bool) int {
	if i >= len(b) || b[i] != '{' || depth > schemaMaxDepth {
		return jsonwalk.SkipValue(b, i)
	}
	return jsonwalk.Members(b, i, func(_, _, vs int) int {
		return w.walk(b, vs, depth, property)
	})
}

// dialect judges the root $schema, given its raw value.
func (w *schemaWalk) dialect(raw []byte) {
	s, ok := schemaUnquote(raw)
	if !ok || s == "" {
		return
	}
	if w.redacted && strings.Contains(s, schemaRedactedMarker) {
		w.found |= schemaRef
		return
	}
	if strings.TrimSuffix(s, "#") != schemaDefaultDialect {
		w.found |= schemaNonDefaultDialect
	}
}

// ref judges a $ref, given its raw value.
func (w *schemaWalk) ref(raw []byte) {
	s, ok := schemaUnquote(raw)
	if !ok {
		return
	}
	switch {
	case w.redacted && strings.Contains(s, schemaRedactedMarker):
		w.found |= schemaRef
	case strings.HasPrefix(s, "#"):
		w.found |= schemaRef
	default:
		w.found |= schemaExternalRef
	}
}

// schemaUnquote returns the text of the JSON string raw (quotes included), escapes
// undone; ok is false when raw is not a string. Without escapes the result
// views raw.
func schemaUnquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return bytesString(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// rootProblem returns the W16 reason for a tool object's inputSchema ("" when the root
// is an object schema or when the problem is only redaction's doing), from the list:
// `no inputSchema`; `an inputSchema that is not a JSON object`; `an inputSchema with a null root type`;
// `an inputSchema with no root type`; `an inputSchema with root type <t %q>`;
// `an inputSchema whose root type is not the string "object"`. Not reported when redacted
// and the schema or its type is the literal string "[REDACTED]".
func rootProblem(tool gjson.Result, redacted bool) string {
	var schema gjson.Result
	if tool.IsObject() {
		schema = tool.Get("inputSchema")
	}
	if !schema.Exists() {
		return "no inputSchema"
	}
	if redacted && schema.Type == gjson.String && schema.Str == schemaRedactedMarker {
		return ""
	}
	if !schema.IsObject() {
		return "an inputSchema that is not a JSON object"
	}
	t := schema.Get("type")
	switch {
	case !t.Exists():
		return "an inputSchema with no root type"
	case t.Type == gjson.Null:
		return "an inputSchema with a null root type"
	case t.Type != gjson.String:
		return `an inputSchema whose root type is not the string "object"`
	case t.Str == "object":
		return ""
	case redacted && t.Str == schemaRedactedMarker:
		return ""
	default:
		return fmt.Sprintf("an inputSchema with root type %q", t.Str)
	}
}
