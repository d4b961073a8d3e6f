package tooldef

import (
	"bytes"
	"encoding/json"
	"slices"
)

// DriftKind names what changed about a tool, in report order.
type DriftKind string

const (
	DriftAdded        DriftKind = "added"
	DriftRemoved      DriftKind = "removed"
	DriftDescription  DriftKind = "description"
	DriftInputSchema  DriftKind = "input_schema"
	DriftTitle        DriftKind = "title"
	DriftOutputSchema DriftKind = "output_schema"
	DriftAnnotations  DriftKind = "annotations"
	DriftIcons        DriftKind = "icons"
)

// DriftKinds lists every kind in report order.
var DriftKinds = []DriftKind{
	DriftAdded, DriftRemoved, DriftDescription, DriftInputSchema,
	DriftTitle, DriftOutputSchema, DriftAnnotations, DriftIcons,
}

// Label is how reports name a kind: "added", "description changed", ...
func (k DriftKind) Label() string {
	switch k {
	case DriftAdded, DriftRemoved:
		return string(k)
	case DriftInputSchema:
		return "input schema changed"
	case DriftOutputSchema:
		return "output schema changed"
	}
	return string(k) + " changed"
}

// DriftEntry is one (kind, tool) difference between two listings, such as
// a baseline and a session.
type DriftEntry struct {
	Kind DriftKind `json:"kind"`
	Tool string    `json:"tool"`
	// Before and After are the old and new description or title (set
	// for those two kinds only).
	Before *string `json:"before,omitempty"`
	After  *string `json:"after,omitempty"`
	// Hints are the annotations that changed (DriftAnnotations).
	Hints []HintChange `json:"hints,omitempty"`
	// Schema is what changed in an input or output schema.
	Schema *SchemaChange `json:"schema,omitempty"`
}

// Diff lists how after differs from before (check.md section 4.3):
// tools added and removed by name, then, for each tool in both, every field
// compared on its own. Entries come in DriftKinds order, tool names sorted
// within a kind; nil means no drift.
//
// A version 1 baseline recorded only name, description and input schema, so
// against one the title, output schema, annotations and icons are not
// compared; they are returned as unverified, in that order. Other versions
// return no unverified kinds.
//
// A name listed twice in one list is compared by its last definition, as a
// lookup by name would find it.
func Diff(before, after []Tool, baselineVersion int) (entries []DriftEntry, unverified []DriftKind) {
	v1 := baselineVersion == 1
	if v1 {
		unverified = []DriftKind{DriftTitle, DriftOutputSchema, DriftAnnotations, DriftIcons}
	}
	old := driftToolsByName(before)
	cur := driftToolsByName(after)
	byKind := make(map[DriftKind][]string)
	pairs := make(map[string][2]Tool)
	for name := range cur {
		if _, ok := old[name]; !ok {
			byKind[DriftAdded] = append(byKind[DriftAdded], name)
		}
	}
	for name, b := range old {
		a, ok := cur[name]
		if !ok {
			byKind[DriftRemoved] = append(byKind[DriftRemoved], name)
			continue
		}
		for _, kind := range driftFieldKinds {
			if v1 && slices.Contains(unverified, kind) {
				continue
			}
			if !driftFieldEqual(kind, b, a) {
				byKind[kind] = append(byKind[kind], name)
				pairs[name] = [2]Tool{b, a}
			}
		}
	}
	for _, kind := range DriftKinds {
		names := byKind[kind]
		slices.Sort(names)
		for _, name := range names {
			e := DriftEntry{Kind: kind, Tool: name}
			if p, ok := pairs[name]; ok {
				describe(&e, p[0], p[1])
			}
			entries = append(entries, e)
		}
	}
	return entries, unverified
}

// driftFieldKinds are the per-field kinds, compared for tools in both lists.
var driftFieldKinds = []DriftKind{
	DriftDescription, DriftInputSchema, DriftTitle,
	DriftOutputSchema, DriftAnnotations, DriftIcons,
}

func driftToolsByName(tools []Tool) map[string]Tool {
	m := make(map[string]Tool, len(tools))
	for _, t := range tools {
		m[t.Name] = t
	}
	return m
}

func driftFieldEqual(kind DriftKind, b, a Tool) bool {
	switch kind {
	case DriftDescription:
		return b.Description == a.Description
	case DriftTitle:
		return b.Title == a.Title
	case DriftInputSchema:
		return bytes.Equal(driftSchemaForm(b.InputSchema), driftSchemaForm(a.InputSchema))
	case DriftOutputSchema:
		return bytes.Equal(driftSchemaForm(b.OutputSchema), driftSchemaForm(a.OutputSchema))
	case DriftAnnotations:
		return bytes.Equal(driftAnnotationsForm(b.Annotations), driftAnnotationsForm(a.Annotations))
	case DriftIcons:
		return bytes.Equal(driftPlainForm(b.Icons), driftPlainForm(a.Icons))
	}
	return true
}

// driftDefaultDialect is the JSON Schema dialect MCP assumes when a schema
// names none; a root "$schema" naming it says nothing new.
const driftDefaultDialect = "https://json-schema.org/draft/2020-12/schema"

// driftSchemaForm is a schema as compared: canonical, without a root "$schema"
// that names the default dialect (with or without the empty fragment "#").
func driftSchemaForm(raw json.RawMessage) []byte {
	x, ok := driftDecode(raw)
	if !ok {
		return raw
	}
	if m, isObj := x.(map[string]any); isObj {
		if s, isStr := m["$schema"].(string); isStr && (s == driftDefaultDialect || s == driftDefaultDialect+"#") {
			delete(m, "$schema")
		}
	}
	return driftEncode(x, raw)
}

// driftHintDefaults are the values MCP gives the hints a tool leaves
// out, so a server spelling out a default it already relied on is no drift.
var driftHintDefaults = map[string]bool{
	"readOnlyHint":    false,
	"destructiveHint": true,
	"idempotentHint":  false,
	"openWorldHint":   true,
}

// driftAnnotationsForm is a tool's annotations as compared: absent, null and {}
// are the all-defaults object, and each missing hint takes its default. A
// hint that is present keeps its value, so a non-boolean never equals a
// boolean; a non-object annotations value stays itself and so differs from
// every object. Unknown keys are left as they are.
func driftAnnotationsForm(raw json.RawMessage) []byte {
	x, ok := driftDecode(raw)
	if !ok {
		return raw
	}
	if x == nil {
		x = map[string]any{}
	}
	if m, isObj := x.(map[string]any); isObj {
		for hint, def := range driftHintDefaults {
			if _, present := m[hint]; !present {
				m[hint] = def
			}
		}
	}
	return driftEncode(x, raw)
}

// driftPlainForm is a value compared as canonical JSON, arrays in order.
func driftPlainForm(raw json.RawMessage) []byte {
	x, ok := driftDecode(raw)
	if !ok {
		return raw
	}
	return driftEncode(x, raw)
}

// driftDecode decodes a stored value for comparison. A value the server did
// not send (nil) is JSON null, as an absent input schema is stored. ok is
// false for bytes that are not JSON, which are then compared as they are.
func driftDecode(raw json.RawMessage) (any, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	x, err := canonicalDecode(raw)
	return x, err == nil
}

func driftEncode(x any, raw json.RawMessage) []byte {
	b, err := canonicalEncode(x)
	if err != nil {
		return raw
	}
	return b
}
