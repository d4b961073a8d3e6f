package tooldef_test

import (
	"reflect"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// defs reads tools/list tool objects, failing the test on one that is not.
func defs(t *testing.T, tools ...string) []tooldef.Tool {
	t.Helper()
	var out []tooldef.Tool
	for _, s := range tools {
		d, ok := tooldef.Parse([]byte(s))
		if !ok {
			t.Fatalf("Parse(%s) not ok", s)
		}
		out = append(out, d)
	}
	return out
}

func entry(kind tooldef.DriftKind, tool string) tooldef.DriftEntry {
	return tooldef.DriftEntry{Kind: kind, Tool: tool}
}

// kindsOnly drops what changed, leaving which (kind, tool) did: what
// TestDiff compares (TestDiffDetail looks at the rest).
func kindsOnly(entries []tooldef.DriftEntry) []tooldef.DriftEntry {
	var out []tooldef.DriftEntry
	for _, e := range entries {
		out = append(out, entry(e.Kind, e.Tool))
	}
	return out
}

func TestDiff(t *testing.T) {
	const obj = `"inputSchema":{"type":"object"}`
	tests := []struct {
		name          string
		before, after []string
		want          []tooldef.DriftEntry
	}{
		{name: "identical",
			before: []string{`{"name":"a","description":"d",` + obj + `}`},
			after:  []string{`{"name":"a","description":"d",` + obj + `}`}},
		{name: "both empty"},
		{name: "added and removed",
			before: []string{`{"name":"a",` + obj + `}`, `{"name":"b",` + obj + `}`},
			after:  []string{`{"name":"c",` + obj + `}`, `{"name":"a",` + obj + `}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAdded, "c"), entry(tooldef.DriftRemoved, "b")}},
		{name: "list order irrelevant",
			before: []string{`{"name":"a"}`, `{"name":"b"}`},
			after:  []string{`{"name":"b"}`, `{"name":"a"}`}},
		{name: "description changed",
			before: []string{`{"name":"a","description":"old"}`},
			after:  []string{`{"name":"a","description":"new words"}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftDescription, "a")}},
		{name: "non-string description is empty",
			before: []string{`{"name":"a","description":5}`},
			after:  []string{`{"name":"a"}`}},
		{name: "description escapes decoded",
			before: []string{`{"name":"a","description":"caf\u00e9"}`},
			after:  []string{`{"name":"a","description":"café"}`}},
		{name: "schema key order irrelevant",
			before: []string{`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"number"}}}}`},
			after:  []string{`{"name":"a","inputSchema":{"properties":{"y":{"type":"number"},"x":{"type":"string"}},"type":"object"}}`}},
		{name: "schema whitespace irrelevant",
			before: []string{`{"name":"a","inputSchema":{"type":"object"}}`},
			after:  []string{"{\"name\":\"a\",\"inputSchema\":{ \"type\" :\n\"object\" }}"}},
		{name: "schema property added",
			before: []string{`{"name":"a",` + obj + `}`},
			after:  []string{`{"name":"a","inputSchema":{"type":"object","properties":{"x":{}}}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftInputSchema, "a")}},
		{name: "default $schema dropped",
			before: []string{`{"name":"a",` + obj + `}`},
			after:  []string{`{"name":"a","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`}},
		{name: "default $schema with # dropped",
			before: []string{`{"name":"a","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}}`},
			after:  []string{`{"name":"a","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`}},
		{name: "escaped default $schema dropped",
			before: []string{`{"name":"a","inputSchema":{"$schema":"https:\/\/json-schema.org\/draft\/2020-12\/schema","type":"object"}}`},
			after:  []string{`{"name":"a",` + obj + `}`}},
		{name: "other $schema kept",
			before: []string{`{"name":"a",` + obj + `}`},
			after:  []string{`{"name":"a","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftInputSchema, "a")}},
		{name: "nested default $schema kept",
			before: []string{`{"name":"a","inputSchema":{"type":"object","properties":{"x":{}}}}`},
			after:  []string{`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftInputSchema, "a")}},
		{name: "input schema absent equals null",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","inputSchema":null}`}},
		{name: "input schema absent differs from {}",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","inputSchema":{}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftInputSchema, "a")}},
		{name: "numbers compared as written",
			before: []string{`{"name":"a","inputSchema":{"maximum":1}}`},
			after:  []string{`{"name":"a","inputSchema":{"maximum":1.0}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftInputSchema, "a")}},
		{name: "title changed",
			before: []string{`{"name":"a","title":"B"}`},
			after:  []string{`{"name":"a","title":"Bee"}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftTitle, "a")}},
		{name: "title absent equals empty",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","title":""}`}},
		{name: "output schema appears",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","outputSchema":{"type":"object"}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftOutputSchema, "a")}},
		{name: "output schema default $schema dropped",
			before: []string{`{"name":"a","outputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema#"}}`},
			after:  []string{`{"name":"a","outputSchema":{"type":"object"}}`}},
		{name: "output schema absent equals null",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","outputSchema":null}`}},
		{name: "annotations spelled-out defaults",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`}},
		{name: "annotations null equals {} equals absent",
			before: []string{`{"name":"a","annotations":null}`, `{"name":"b","annotations":{}}`, `{"name":"c"}`},
			after:  []string{`{"name":"a","annotations":{}}`, `{"name":"b"}`, `{"name":"c","annotations":null}`}},
		{name: "annotations partial defaults spelled out",
			before: []string{`{"name":"a","annotations":{"readOnlyHint":true}}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":true,"openWorldHint":true}}`}},
		{name: "readOnlyHint true to false",
			before: []string{`{"name":"a","annotations":{"readOnlyHint":true}}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":false}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "readOnlyHint true to absent",
			before: []string{`{"name":"a","annotations":{"readOnlyHint":true}}`},
			after:  []string{`{"name":"a"}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "destructiveHint absent to false",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","annotations":{"destructiveHint":false}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "destructiveHint absent to true",
			before: []string{`{"name":"a","annotations":{}}`},
			after:  []string{`{"name":"a","annotations":{"destructiveHint":true}}`}},
		{name: "openWorldHint absent to false",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","annotations":{"openWorldHint":false}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "non-boolean hint distinct from its default",
			before: []string{`{"name":"a","annotations":{"readOnlyHint":false}}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":"false"}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "null hint distinct from absent",
			before: []string{`{"name":"a","annotations":{}}`},
			after:  []string{`{"name":"a","annotations":{"destructiveHint":null}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "numeric hint distinct from boolean",
			before: []string{`{"name":"a","annotations":{"idempotentHint":true}}`},
			after:  []string{`{"name":"a","annotations":{"idempotentHint":1}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "non-object annotations distinct from {}",
			before: []string{`{"name":"a","annotations":{}}`},
			after:  []string{`{"name":"a","annotations":[]}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "non-object annotations distinct from absent",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","annotations":"readOnly"}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "unknown annotation key added",
			before: []string{`{"name":"a","annotations":{"readOnlyHint":true}}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":true,"title":"A"}}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftAnnotations, "a")}},
		{name: "annotation key order irrelevant",
			before: []string{`{"name":"a","annotations":{"title":"A","readOnlyHint":true}}`},
			after:  []string{`{"name":"a","annotations":{"readOnlyHint":true,"title":"A"}}`}},
		{name: "icons order-sensitive",
			before: []string{`{"name":"a","icons":[{"src":"x.png"},{"src":"y.png"}]}`},
			after:  []string{`{"name":"a","icons":[{"src":"y.png"},{"src":"x.png"}]}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftIcons, "a")}},
		{name: "icon key order irrelevant",
			before: []string{`{"name":"a","icons":[{"src":"x.png","mimeType":"image/png"}]}`},
			after:  []string{`{"name":"a","icons":[{"mimeType":"image/png","src":"x.png"}]}`}},
		{name: "icons appear",
			before: []string{`{"name":"a"}`},
			after:  []string{`{"name":"a","icons":[]}`},
			want:   []tooldef.DriftEntry{entry(tooldef.DriftIcons, "a")}},
		{name: "every kind, report order",
			before: []string{
				`{"name":"z","description":"1","inputSchema":{"a":1},"title":"t","outputSchema":{},"annotations":{},"icons":[]}`,
				`{"name":"m","description":"1","inputSchema":{"a":1},"title":"t","outputSchema":{},"annotations":{},"icons":[]}`,
				`{"name":"gone2"}`, `{"name":"gone1"}`,
			},
			after: []string{
				`{"name":"new2"}`, `{"name":"new1"}`,
				`{"name":"z","description":"2","inputSchema":{"a":2},"title":"u","outputSchema":{"b":1},"annotations":{"readOnlyHint":true},"icons":[1]}`,
				`{"name":"m","description":"2","inputSchema":{"a":2},"title":"u","outputSchema":{"b":1},"annotations":{"readOnlyHint":true},"icons":[1]}`,
			},
			want: []tooldef.DriftEntry{
				entry(tooldef.DriftAdded, "new1"), entry(tooldef.DriftAdded, "new2"),
				entry(tooldef.DriftRemoved, "gone1"), entry(tooldef.DriftRemoved, "gone2"),
				entry(tooldef.DriftDescription, "m"), entry(tooldef.DriftDescription, "z"),
				entry(tooldef.DriftInputSchema, "m"), entry(tooldef.DriftInputSchema, "z"),
				entry(tooldef.DriftTitle, "m"), entry(tooldef.DriftTitle, "z"),
				entry(tooldef.DriftOutputSchema, "m"), entry(tooldef.DriftOutputSchema, "z"),
				entry(tooldef.DriftAnnotations, "m"), entry(tooldef.DriftAnnotations, "z"),
				entry(tooldef.DriftIcons, "m"), entry(tooldef.DriftIcons, "z"),
			}},
		{name: "spec example: two sessions, same label",
			before: []string{`{"name":"a","description":"old"}`, `{"name":"b"}`},
			after:  []string{`{"name":"a","description":"new words"}`, `{"name":"c"}`},
			want: []tooldef.DriftEntry{
				entry(tooldef.DriftAdded, "c"), entry(tooldef.DriftRemoved, "b"), entry(tooldef.DriftDescription, "a"),
			}},
		{name: "conformance: annotation defaults and title",
			before: []string{
				`{"name":"a","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
				`{"name":"b","description":"d","inputSchema":{"type":"object"},"title":"B"}`,
			},
			after: []string{
				`{"name":"a","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":true,"openWorldHint":true}}`,
				`{"name":"b","description":"d","inputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema"},"title":"Bee"}`,
			},
			want: []tooldef.DriftEntry{entry(tooldef.DriftTitle, "b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unverified := tooldef.Diff(defs(t, tt.before...), defs(t, tt.after...), 2)
			if got := kindsOnly(got); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entries = %v, want %v", got, tt.want)
			}
			if unverified != nil {
				t.Errorf("unverified = %v, want none for a version 2 baseline", unverified)
			}
		})
	}
}

func TestDiffVersion1(t *testing.T) {
	// Everything differs; a version 1 baseline can only answer for the
	// name set, the description and the input schema.
	before := defs(t, `{"name":"a","description":"old","inputSchema":{"type":"object"},"title":"T","annotations":{"readOnlyHint":true},"icons":[]}`, `{"name":"b"}`)
	after := defs(t, `{"name":"a","description":"new","inputSchema":{"type":"string"},"title":"U","outputSchema":{},"annotations":{"readOnlyHint":false},"icons":[1]}`)
	allUnverified := []tooldef.DriftKind{tooldef.DriftTitle, tooldef.DriftOutputSchema, tooldef.DriftAnnotations, tooldef.DriftIcons}
	tests := []struct {
		name       string
		version    int
		before     []tooldef.Tool
		want       []tooldef.DriftEntry
		unverified []tooldef.DriftKind
	}{
		{name: "version 1", version: 1, before: before,
			want:       []tooldef.DriftEntry{entry(tooldef.DriftRemoved, "b"), entry(tooldef.DriftDescription, "a"), entry(tooldef.DriftInputSchema, "a")},
			unverified: allUnverified},
		{name: "version 1, no drift", version: 1, before: after, unverified: allUnverified},
		{name: "version 2", version: 2, before: before,
			want: []tooldef.DriftEntry{
				entry(tooldef.DriftRemoved, "b"), entry(tooldef.DriftDescription, "a"), entry(tooldef.DriftInputSchema, "a"),
				entry(tooldef.DriftTitle, "a"), entry(tooldef.DriftOutputSchema, "a"),
				entry(tooldef.DriftAnnotations, "a"), entry(tooldef.DriftIcons, "a"),
			}},
		{name: "version 0 compares everything", version: 0, before: before[:1],
			want: []tooldef.DriftEntry{
				entry(tooldef.DriftDescription, "a"), entry(tooldef.DriftInputSchema, "a"),
				entry(tooldef.DriftTitle, "a"), entry(tooldef.DriftOutputSchema, "a"),
				entry(tooldef.DriftAnnotations, "a"), entry(tooldef.DriftIcons, "a"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unverified := tooldef.Diff(tt.before, after, tt.version)
			if got := kindsOnly(got); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entries = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(unverified, tt.unverified) {
				t.Errorf("unverified = %v, want %v", unverified, tt.unverified)
			}
		})
	}
}
