// Package tooldef is what a tool definition is and how two listings of them
// differ: Tool is one tool of a tools/list result in the canonical form tool
// baselines store (check.md section 4.2), and Diff lists the drift between
// two listings (section 4.3). It is pure: no I/O, no session state.
package tooldef

import (
	"bytes"
	"encoding/json"
)

// Tool is one tool as a tools/list result advertised it, in the form the
// tool baseline stores and drift compares (check.md section 4.2). The JSON
// values are canonical: object keys sorted, numbers as written, no spaces.
type Tool struct {
	Name        string
	Description string // "" when absent or not a string
	Title       string // "" when absent or not a string
	// InputSchema is "null" when the tool has none.
	InputSchema json.RawMessage
	// OutputSchema, Annotations and Icons are nil when the server sent none.
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
	Icons        json.RawMessage
}

// Parse reads one tool object of a tools/list result. ok is false when tool
// is not a JSON object or has no string "name". Description and title are
// the decoded strings ("" when absent or not strings); the input schema is
// canonical JSON, or null when absent; the output schema, annotations and
// icons are canonical JSON, or nil when absent.
func Parse(tool []byte) (Tool, bool) {
	trimmed := bytes.TrimLeft(tool, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Tool{}, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(tool, &fields); err != nil {
		return Tool{}, false
	}
	name, ok := jsonString(fields["name"])
	if !ok {
		return Tool{}, false
	}
	def := Tool{Name: name, InputSchema: json.RawMessage("null")}
	def.Description, _ = jsonString(fields["description"])
	def.Title, _ = jsonString(fields["title"])
	for key, dst := range map[string]*json.RawMessage{
		"inputSchema":  &def.InputSchema,
		"outputSchema": &def.OutputSchema,
		"annotations":  &def.Annotations,
		"icons":        &def.Icons,
	} {
		raw, present := fields[key]
		if !present {
			continue
		}
		c, err := CanonicalJSON(raw)
		if err != nil {
			return Tool{}, false // unreachable: the object parsed
		}
		*dst = c
	}
	return def, true
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
