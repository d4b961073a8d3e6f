package tooldef_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// Each drift entry says what changed: old and new text, each hint with its
// two values (defaults filled in), and a schema's property paths.
func TestDiffDetail(t *testing.T) {
	long := strings.Repeat("Reads a file from the workspace. ", 6)
	tests := []struct {
		name          string
		before, after string
		kind          tooldef.DriftKind
		detail        string
	}{
		{"description", `{"name":"a","description":"Reads a file"}`, `{"name":"a","description":"Reads and deletes a file"}`,
			tooldef.DriftDescription, `"Reads a file" → "Reads and deletes a file"`},
		{"description added", `{"name":"a"}`, `{"name":"a","description":"new"}`,
			tooldef.DriftDescription, `"" → "new"`},
		{"long description, shown where it changed", `{"name":"a","description":"` + long + `Safe."}`, `{"name":"a","description":"` + long + `Deletes it afterwards."}`,
			tooldef.DriftDescription, `…"ds a file from the workspace. Safe." → …"ds a file from the workspace. Deletes it afterwards."`},
		{"title", `{"name":"a","title":"Read"}`, `{"name":"a","title":"Read & wipe"}`,
			tooldef.DriftTitle, `"Read" → "Read & wipe"`},
		{"a hint against its default", `{"name":"a","annotations":{"readOnlyHint":true}}`, `{"name":"a"}`,
			tooldef.DriftAnnotations, `readOnlyHint true → false`},
		{"several hints and another key, hints first", `{"name":"a","annotations":{"title":"x","destructiveHint":false}}`, `{"name":"a","annotations":{"readOnlyHint":true,"destructiveHint":true}}`,
			tooldef.DriftAnnotations, `readOnlyHint false → true, destructiveHint false → true, title "x" → absent`},
		{"annotations not an object", `{"name":"a","annotations":"ro"}`, `{"name":"a"}`,
			tooldef.DriftAnnotations, `(annotations) "ro" → {"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false}`},
		{"schema paths",
			`{"name":"a","inputSchema":{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"mode":{"type":"string"},"opts":{"type":"object","properties":{"depth":{"type":"integer"}}}}}}`,
			`{"name":"a","inputSchema":{"type":"object","required":["path","force"],"properties":{"path":{"type":"string","minLength":1},"force":{"type":"boolean"},"opts":{"type":"object","properties":{"depth":{"type":"number"},"all":{"type":"boolean"}}}}}}`,
			tooldef.DriftInputSchema, `added force, opts.all; removed mode; changed opts.depth, path`},
		{"a property becoming required is changed", `{"name":"a","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`,
			`{"name":"a","inputSchema":{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}}`,
			tooldef.DriftInputSchema, `changed q`},
		{"the root and array items", `{"name":"a","outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}}}}}}}`,
			`{"name":"a","outputSchema":{"type":"object","additionalProperties":false,"properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}}}}}`,
			tooldef.DriftOutputSchema, `changed (root), rows[].id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tooldef.Diff(defs(t, tt.before), defs(t, tt.after), 2)
			if len(got) != 1 || got[0].Kind != tt.kind {
				t.Fatalf("entries %+v, want one %s", got, tt.kind)
			}
			if d := got[0].Detail(); d != tt.detail {
				t.Errorf("detail\n got %s\nwant %s", d, tt.detail)
			}
		})
	}
}

// Past ten paths a schema's detail says how many more there are.
func TestDiffDetailManyPaths(t *testing.T) {
	var props []string
	for i := range 13 {
		props = append(props, `"p`+string(rune('a'+i))+`":{"type":"string"}`)
	}
	got, _ := tooldef.Diff(defs(t, `{"name":"a","inputSchema":{"type":"object"}}`),
		defs(t, `{"name":"a","inputSchema":{"type":"object","properties":{`+strings.Join(props, ",")+`}}}`), 2)
	want := "added pa, pb, pc, pd, pe, pf, pg, ph, pi, pj and 3 more"
	if len(got) != 1 || got[0].Detail() != want {
		t.Errorf("%+v: %q, want %q", got, got[0].Detail(), want)
	}
	if len(got[0].Schema.Added) != 13 {
		t.Errorf("the entry keeps every path: %v", got[0].Schema.Added)
	}
}
