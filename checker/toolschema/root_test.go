package toolschema

import (
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRootProblem(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		redacted bool
		want     string
	}{
		{name: "object root", tool: `{"name":"a","inputSchema":{"type":"object"}}`, want: ""},
		{name: "object root with properties", tool: `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`, want: ""},
		{name: "no inputSchema", tool: `{"name":"a","description":"no schema"}`, want: "no inputSchema"},
		{name: "not a tool object", tool: `"a"`, want: "no inputSchema"},
		{name: "schema is a string", tool: `{"name":"a","inputSchema":"object"}`, want: "an inputSchema that is not a JSON object"},
		{name: "schema is true", tool: `{"name":"a","inputSchema":true}`, want: "an inputSchema that is not a JSON object"},
		{name: "schema is an array", tool: `{"name":"a","inputSchema":[{"type":"object"}]}`, want: "an inputSchema that is not a JSON object"},
		{name: "schema is null", tool: `{"name":"a","inputSchema":null}`, want: "an inputSchema that is not a JSON object"},
		{name: "null root type", tool: `{"name":"a","inputSchema":{"type":null}}`, want: "an inputSchema with a null root type"},
		{name: "no root type", tool: `{"name":"a","inputSchema":{"properties":{"x":{"type":"string"}}}}`, want: "an inputSchema with no root type"},
		{name: "empty schema", tool: `{"name":"a","inputSchema":{}}`, want: "an inputSchema with no root type"},
		{name: "array root type", tool: `{"name":"b","inputSchema":{"type":"array"}}`, want: `an inputSchema with root type "array"`},
		{name: "empty root type", tool: `{"name":"b","inputSchema":{"type":""}}`, want: `an inputSchema with root type ""`},
		{name: "quoted root type", tool: `{"name":"b","inputSchema":{"type":"ob\"ject"}}`, want: `an inputSchema with root type "ob\"ject"`},
		{name: "case matters", tool: `{"name":"b","inputSchema":{"type":"Object"}}`, want: `an inputSchema with root type "Object"`},
		{name: "union root type", tool: `{"name":"c","inputSchema":{"type":["object","null"]}}`, want: `an inputSchema whose root type is not the string "object"`},
		{name: "single-member union root type", tool: `{"name":"c","inputSchema":{"type":["object"]}}`, want: `an inputSchema whose root type is not the string "object"`},
		{name: "numeric root type", tool: `{"name":"c","inputSchema":{"type":1}}`, want: `an inputSchema whose root type is not the string "object"`},
		{name: "object root type", tool: `{"name":"c","inputSchema":{"type":{"const":"object"}}}`, want: `an inputSchema whose root type is not the string "object"`},

		// Redaction.
		{name: "redacted schema", tool: `{"name":"a","inputSchema":"[REDACTED]"}`, redacted: true, want: ""},
		{name: "redacted type", tool: `{"name":"a","inputSchema":{"type":"[REDACTED]"}}`, redacted: true, want: ""},
		{name: "[REDACTED] schema without the flag", tool: `{"name":"a","inputSchema":"[REDACTED]"}`, want: "an inputSchema that is not a JSON object"},
		{name: "[REDACTED] type without the flag", tool: `{"name":"a","inputSchema":{"type":"[REDACTED]"}}`, want: `an inputSchema with root type "[REDACTED]"`},
		{name: "redacted frame, other string schema", tool: `{"name":"a","inputSchema":"x [REDACTED]"}`, redacted: true, want: "an inputSchema that is not a JSON object"},
		{name: "redacted frame, type only contains the marker", tool: `{"name":"a","inputSchema":{"type":"[REDACTED]x"}}`, redacted: true, want: `an inputSchema with root type "[REDACTED]x"`},
		{name: "redacted frame, missing schema", tool: `{"name":"a"}`, redacted: true, want: "no inputSchema"},
		{name: "redacted frame, array type", tool: `{"name":"a","inputSchema":{"type":["[REDACTED]"]}}`, redacted: true, want: `an inputSchema whose root type is not the string "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RootProblem(gjson.Parse(tt.tool), tt.redacted); got != tt.want {
				t.Errorf("RootProblem(%s, %v) = %q, want %q", tt.tool, tt.redacted, got, tt.want)
			}
		})
	}
}

// TestRootProblemFixture mirrors the warn-schema-root-not-object conformance case.
func TestRootProblemFixture(t *testing.T) {
	tools := gjson.Parse(`[{"name":"a","description":"no schema"},{"name":"b","description":"d","inputSchema":{"type":"array"}},{"name":"c","description":"d","inputSchema":{"type":["object","null"]}},{"name":"d","description":"d","inputSchema":{"type":"object"}}]`)
	var got []string
	tools.ForEach(func(_, tool gjson.Result) bool {
		if r := RootProblem(tool, false); r != "" {
			got = append(got, tool.Get("name").Str+": "+r)
		}
		return true
	})
	want := []string{
		"a: no inputSchema",
		`b: an inputSchema with root type "array"`,
		`c: an inputSchema whose root type is not the string "object"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
