package tooldef_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

func TestParse(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		in   string
		want tooldef.Tool
		ok   bool
	}{
		{name: "not JSON", in: `{name`},
		{name: "array", in: `[{"name":"a"}]`},
		{name: "null", in: `null`},
		{name: "string", in: `"a"`},
		{name: "no name", in: `{"description":"d"}`},
		{name: "null name", in: `{"name":null}`},
		{name: "numeric name", in: `{"name":1}`},
		{name: "minimal", in: ` {"name":"a"}`, ok: true,
			want: tooldef.Tool{Name: "a", InputSchema: raw(`null`)}},
		{name: "full", ok: true,
			in: `{"name":"a","description":"d <b>","title":"T","inputSchema":{"type":"object", "properties":{"y":{},"x":{"maximum":1.0}}},
				"outputSchema":{"type":"object"},"annotations":{"title":"A & B","readOnlyHint":true},"icons":[{"src":"i.png","mimeType":"image/png"}],"extra":1}`,
			want: tooldef.Tool{Name: "a", Description: "d <b>", Title: "T",
				InputSchema:  raw(`{"properties":{"x":{"maximum":1.0},"y":{}},"type":"object"}`),
				OutputSchema: raw(`{"type":"object"}`),
				Annotations:  raw(`{"readOnlyHint":true,"title":"A & B"}`),
				Icons:        raw(`[{"mimeType":"image/png","src":"i.png"}]`)}},
		{name: "non-string description and title", in: `{"name":"a","description":{"x":1},"title":false}`, ok: true,
			want: tooldef.Tool{Name: "a", InputSchema: raw(`null`)}},
		{name: "explicit nulls kept", in: `{"name":"a","inputSchema":null,"outputSchema":null,"annotations":null,"icons":null}`, ok: true,
			want: tooldef.Tool{Name: "a", InputSchema: raw(`null`), OutputSchema: raw(`null`), Annotations: raw(`null`), Icons: raw(`null`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tooldef.Parse([]byte(tt.in))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
