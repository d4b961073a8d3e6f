package toolschema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestKinds(t *testing.T) {
	tests := []struct {
		name     string
		input    string // "" = absent
		output   string // "" = absent
		redacted bool
		want     []string
	}{
		// Nothing to find.
		{name: "both absent", want: nil},
		{name: "plain object", input: `{"type":"object"}`, want: nil},
		{name: "not an object", input: `"[REDACTED]"`, output: `true`, want: nil},
		{name: "typed properties", input: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["string","null"]}}}`, want: nil},

		// nonDefaultDialect.
		{name: "draft-07 dialect", input: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, want: []string{"nonDefaultDialect"}},
		{name: "default dialect", input: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, want: nil},
		{name: "default dialect with trailing #", input: `{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`, want: nil},
		{name: "default dialect with two trailing #", input: `{"$schema":"https://json-schema.org/draft/2020-12/schema##"}`, want: []string{"nonDefaultDialect"}},
		{name: "http default dialect is another", input: `{"$schema":"http://json-schema.org/draft/2020-12/schema"}`, want: []string{"nonDefaultDialect"}},
		{name: "empty $schema", input: `{"$schema":""}`, want: nil},
		{name: "non-string $schema", input: `{"$schema":7}`, want: nil},
		{name: "nested $schema is no dialect", input: `{"type":"object","properties":{"a":{"type":"string","$schema":"http://json-schema.org/draft-07/schema#"}}}`, want: nil},
		{name: "dialect in outputSchema", input: `{"type":"object"}`, output: `{"$schema":"https://json-schema.org/draft/2019-09/schema"}`, want: []string{"nonDefaultDialect"}},
		{name: "redacted $schema counts as ref", input: `{"$schema":"https://[REDACTED]/schema","type":"object"}`, redacted: true, want: []string{"ref"}},
		{name: "[REDACTED] $schema without the flag is a dialect", input: `{"$schema":"https://[REDACTED]/schema","type":"object"}`, want: []string{"nonDefaultDialect"}},

		// oneOf, anyOf, allOf, not: anywhere visited.
		{name: "oneOf at root", input: `{"oneOf":[{"type":"object"}]}`, want: []string{"oneOf"}},
		{name: "oneOf in a property", input: `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, want: []string{"oneOf"}},
		{name: "oneOf inside items inside properties", input: `{"type":"object","properties":{"list":{"type":"array","items":{"oneOf":[{"type":"string"}]}}}}`, want: []string{"oneOf"}},
		{name: "anyOf in outputSchema only", input: `{"type":"object"}`, output: `{"anyOf":[{"type":"object"},{"type":"null"}]}`, want: []string{"anyOf"}},
		{name: "allOf and not nested", input: `{"type":"object","properties":{"a":{"type":"array","items":{"allOf":[{"not":{"type":"string"}}]}}}}`, want: []string{"allOf", "not"}},
		{name: "keyword with null value appears", input: `{"type":"object","not":null}`, want: []string{"not"}},
		{name: "keyword under data is not visited", input: `{"type":"object","default":{"oneOf":[1]},"examples":[{"anyOf":[]}],"const":{"allOf":[]},"enum":[{"not":{}}]}`, want: nil},
		{name: "keyword under unlisted member is not visited", input: `{"type":"object","x-extra":{"oneOf":[{"type":"string"}]},"dependencies":{"a":{"anyOf":[]}}}`, want: nil},
		{name: "property named oneOf is no keyword", input: `{"type":"object","properties":{"oneOf":{"type":"string"}}}`, want: nil},

		// Every visited position.
		{name: "via anyOf member", input: `{"anyOf":[{"oneOf":[]}]}`, want: []string{"oneOf", "anyOf"}},
		{name: "via allOf member", input: `{"allOf":[{"not":{}}]}`, want: []string{"allOf", "not"}},
		{name: "via prefixItems member", input: `{"type":"array","prefixItems":[{"type":"string"},{"anyOf":[]}]}`, want: []string{"anyOf"}},
		{name: "via not", input: `{"not":{"allOf":[]}}`, want: []string{"allOf", "not"}},
		{name: "via items", input: `{"type":"array","items":{"not":{}}}`, want: []string{"not"}},
		{name: "items array is not visited", input: `{"type":"array","items":[{"not":{}}]}`, want: nil},
		{name: "via additionalProperties", input: `{"type":"object","additionalProperties":{"oneOf":[]}}`, want: []string{"oneOf"}},
		{name: "additionalProperties false", input: `{"type":"object","additionalProperties":false}`, want: nil},
		{name: "via if", input: `{"if":{"$ref":"#/a"}}`, want: []string{"ref"}},
		{name: "via then", input: `{"then":{"$ref":"#/a"}}`, want: []string{"ref"}},
		{name: "via else", input: `{"else":{"$ref":"other.json"}}`, want: []string{"externalRef"}},
		{name: "via contains", input: `{"contains":{"anyOf":[]}}`, want: []string{"anyOf"}},
		{name: "via propertyNames", input: `{"propertyNames":{"not":{"const":"x"}}}`, want: []string{"not"}},
		{name: "via $defs", input: `{"type":"object","$defs":{"a":{"type":"string"},"b":{"oneOf":[]}}}`, want: []string{"oneOf"}},
		{name: "via definitions", input: `{"definitions":{"a":{"allOf":[]}}}`, want: []string{"allOf"}},
		{name: "via patternProperties", input: `{"patternProperties":{"^x":{"$ref":"#/$defs/x"}}}`, want: []string{"ref"}},
		{name: "via dependentSchemas", input: `{"dependentSchemas":{"a":{"not":{}}}}`, want: []string{"not"}},
		{name: "$defs values are not properties", input: `{"$defs":{"a":{"description":"no type"}}}`, want: nil},

		// ref and externalRef.
		{name: "local ref", input: `{"type":"object","$defs":{"n":{"type":"string"}},"properties":{"n":{"$ref":"#/$defs/n"}}}`, want: []string{"ref"}},
		{name: "root ref", input: `{"$ref":"#"}`, want: []string{"ref"}},
		{name: "external ref", input: `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`, want: []string{"externalRef"}},
		{name: "relative ref is external", input: `{"$ref":"defs.json#/a"}`, want: []string{"externalRef"}},
		{name: "empty ref is external", input: `{"$ref":""}`, want: []string{"externalRef"}},
		{name: "non-string ref", input: `{"type":"object","properties":{"x":{"$ref":{"a":1}}}}`, want: nil},
		{name: "both refs", input: `{"properties":{"a":{"$ref":"#/a"},"b":{"$ref":"b.json"}}}`, want: []string{"ref", "externalRef"}},
		{name: "redacted ref counts as ref", input: `{"type":"object","properties":{"x":{"$ref":"https://[REDACTED]@example.com/s.json"}}}`, redacted: true, want: []string{"ref"}},
		{name: "[REDACTED] ref without the flag is external", input: `{"type":"object","properties":{"x":{"$ref":"[REDACTED]"}}}`, want: []string{"externalRef"}},
		{name: "escaped $ref key", input: `{"properties":{"x":{"\u0024ref":"x.json"}}}`, want: []string{"externalRef"}},

		// untypedProperty.
		{name: "untyped property", input: `{"type":"object","properties":{"anything":{"description":"no type"}}}`, want: []string{"untypedProperty"}},
		{name: "empty property", input: `{"type":"object","properties":{"anything":{}}}`, want: []string{"untypedProperty"}},
		{name: "enum-only property is typed", input: `{"type":"object","properties":{"s":{"enum":["a"]}}}`, want: nil},
		{name: "const-only property is typed", input: `{"type":"object","properties":{"s":{"const":1}}}`, want: nil},
		{name: "ref property is typed", input: `{"type":"object","properties":{"s":{"$ref":"#/$defs/s"}}}`, want: []string{"ref"}},
		{name: "anyOf property is typed", input: `{"type":"object","properties":{"s":{"anyOf":[{"type":"string"}]}}}`, want: []string{"anyOf"}},
		{name: "allOf property is typed", input: `{"type":"object","properties":{"s":{"allOf":[{"type":"string"}]}}}`, want: []string{"allOf"}},
		{name: "not property is typed", input: `{"type":"object","properties":{"s":{"not":{"type":"string"}}}}`, want: []string{"not"}},
		{name: "type null property is typed", input: `{"type":"object","properties":{"s":{"type":null}}}`, want: nil},
		{name: "boolean property is not an object", input: `{"type":"object","properties":{"s":true,"t":false}}`, want: nil},
		{name: "nested untyped property", input: `{"type":"object","properties":{"o":{"type":"object","properties":{"deep":{"title":"t"}}}}}`, want: []string{"untypedProperty"}},
		{name: "untyped property in outputSchema", output: `{"type":"object","properties":{"r":{"format":"date"}}}`, want: []string{"untypedProperty"}},
		{name: "untyped node that is not a property", input: `{"type":"object","items":{"description":"x"},"anyOf":[{"description":"y"}]}`, want: []string{"anyOf"}},
		{name: "properties not an object", input: `{"type":"object","properties":[{"description":"x"}]}`, want: nil},
		{name: "untyped property under $defs", input: `{"$defs":{"a":{"properties":{"b":{}}}}}`, want: []string{"untypedProperty"}},

		// Union and report order.
		{
			name:   "everything once, in report order",
			input:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"z":{},"a":{"$ref":"x.json"},"b":{"not":{"oneOf":[{"$ref":"#/a"}]}},"c":{"allOf":[{"anyOf":[{}]}]}}}`,
			output: `{"anyOf":[{"type":"object","properties":{"q":{}}}],"oneOf":[]}`,
			want:   []string{"nonDefaultDialect", "oneOf", "anyOf", "allOf", "not", "ref", "externalRef", "untypedProperty"},
		},
		{name: "union of input and output", input: `{"type":"object","properties":{"a":{"$ref":"#/x"}}}`, output: `{"oneOf":[{"type":"object"}]}`, want: []string{"oneOf", "ref"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in, out gjson.Result
			if tt.input != "" {
				in = gjson.Parse(tt.input)
			}
			if tt.output != "" {
				out = gjson.Parse(tt.output)
			}
			got := Kinds(in, out, tt.redacted)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Kinds(%s, %s, %v) = %q, want %q", tt.input, tt.output, tt.redacted, got, tt.want)
			}
			if ref := referenceKinds(in, out, tt.redacted); !reflect.DeepEqual(ref, tt.want) {
				t.Errorf("reference walk = %q, want %q", ref, tt.want)
			}
		})
	}
}

// TestKindsFromTool reads the schemas the way a caller does, from a tool object.
func TestKindsFromTool(t *testing.T) {
	tool := gjson.Parse(`{"name":"pick","inputSchema":{"type":"object","properties":{"v":{"oneOf":[{"type":"string"}]}}},"outputSchema":{"anyOf":[{"type":"object"}]}}`)
	got := Kinds(tool.Get("inputSchema"), tool.Get("outputSchema"), false)
	if want := []string{"oneOf", "anyOf"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	noOutput := gjson.Parse(`{"name":"x","inputSchema":{"type":"object","properties":{"a":{}}}}`)
	got = Kinds(noOutput.Get("inputSchema"), noOutput.Get("outputSchema"), false)
	if want := []string{"untypedProperty"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestKindsDeepNesting checks that hostile nesting neither blows the
// stack nor is followed past the depth cap.
func TestKindsDeepNesting(t *testing.T) {
	nest := func(depth int, open, leaf, close string) string {
		return strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth)
	}
	// A keyword just inside the cap is found; past it, it is not.
	inside := nest(maxDepth, `{"not":`, `{"oneOf":[]}`, `}`)
	if got := Kinds(gjson.Parse(inside), gjson.Result{}, false); !reflect.DeepEqual(got, []string{"oneOf", "not"}) {
		t.Errorf("at the cap: got %q", got)
	}
	past := nest(maxDepth+1, `{"not":`, `{"oneOf":[]}`, `}`)
	if got := Kinds(gjson.Parse(past), gjson.Result{}, false); !reflect.DeepEqual(got, []string{"not"}) {
		t.Errorf("past the cap: got %q", got)
	}
	// Very deep nesting through every kind of descent: the walk stops at the
	// cap, so the external $ref at the bottom is never seen.
	for _, step := range []struct {
		open, close string
		want        []string
	}{
		{`{"properties":{"p":`, `}}`, []string{"untypedProperty"}},
		{`{"items":`, `}`, nil},
		{`{"anyOf":[`, `]}`, []string{"anyOf"}},
		{`{"$defs":{"d":`, `}}`, nil},
		{`{"prefixItems":[`, `]}`, nil},
		{`{"not":`, `}`, []string{"not"}},
	} {
		deep := gjson.Parse(nest(100000, step.open, `{"$ref":"x.json"}`, step.close))
		if got := Kinds(deep, deep, false); !reflect.DeepEqual(got, step.want) {
			t.Errorf("%s: got %q, want %q", step.open, got, step.want)
		}
	}
}

// TestKindsMalformed feeds every prefix of a busy schema (and some
// junk) to the walk: it must neither panic nor spin.
func TestKindsMalformed(t *testing.T) {
	busy := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a\\\"b":{"$ref":"x\\u0023.json"},"z":{},"n":{"not":{"oneOf":[{"$ref":"#/a"},true,[],"s"]}},"c":{"allOf":[{"anyOf":[{}]}]},"p":{"prefixItems":[{"items":{"if":{}}}]}},"$defs":{"d":{"properties":{"q":{"enum":[1]}}}}}`
	if !gjson.Valid(busy) {
		t.Fatal("busy schema is not valid JSON")
	}
	for i := 0; i <= len(busy); i++ {
		r := gjson.Parse(busy[:i])
		Kinds(r, r, true)
		Kinds(r, r, false)
	}
	for _, junk := range []string{
		`{`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a":}`, `{"properties":{"x":}}`, `{"oneOf":[:]}`,
		`{"oneOf":[,,]}`, `{"oneOf":[}`, `{"anyOf":[{"oneOf":[:`, `{"$ref":"\\"}`, `{"$ref":"`, `{"$schema":"`,
		`{"not"::{}}`, `{"properties":[}`, `{"items":]`, `{]`, `{"a":1,,"oneOf":[]}`,
	} {
		r := gjson.Parse(junk)
		Kinds(r, r, false)
	}
}

// FuzzKinds checks, on valid JSON, that the one-pass byte walk agrees
// with a plain recursive walk over gjson values, and on anything else that it
// does not panic.
func FuzzKinds(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"}]}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#","properties":{"s":{"enum":["a"]},"t":{}}}`,
		`{"anyOf":[{"$ref":"#/x"},{"$ref":"[REDACTED]"}],"$defs":{"a":{"not":{"allOf":[]}}}}`,
		`{"items":{"properties":{"a":{"title":"x"}}},"prefixItems":[{"$ref":"y.json"}]}`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, s string, redacted bool) {
		r := gjson.Parse(s)
		got := Kinds(r, gjson.Result{}, redacted)
		if !gjson.Valid(s) {
			return
		}
		if want := referenceKinds(r, gjson.Result{}, redacted); !reflect.DeepEqual(got, want) {
			t.Errorf("Kinds(%s, %v) = %q, reference %q", s, redacted, got, want)
		}
	})
}

// referenceKinds is check.md 3.9 written as directly as possible over
// gjson values, as an oracle for the byte walk.
func referenceKinds(input, output gjson.Result, redacted bool) []string {
	found := map[string]bool{}
	isRedacted := func(s string) bool { return redacted && strings.Contains(s, "[REDACTED]") }
	var visit func(n gjson.Result, depth int, property bool)
	visitArray := func(v gjson.Result, depth int) {
		if v.IsArray() {
			for _, m := range v.Array() {
				visit(m, depth, false)
			}
		}
	}
	visitValues := func(v gjson.Result, depth int, property bool) {
		if v.IsObject() {
			v.ForEach(func(_, m gjson.Result) bool {
				visit(m, depth, property)
				return true
			})
		}
	}
	visit = func(n gjson.Result, depth int, property bool) {
		if depth > maxDepth || !n.IsObject() {
			return
		}
		typed := false
		n.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "type", "enum", "const", "$ref", "oneOf", "anyOf", "allOf", "not":
				typed = true
			}
			switch k.Str {
			case "$ref":
				if v.Type == gjson.String {
					if isRedacted(v.Str) || strings.HasPrefix(v.Str, "#") {
						found["ref"] = true
					} else {
						found["externalRef"] = true
					}
				}
			case "oneOf", "anyOf", "allOf":
				found[k.Str] = true
				visitArray(v, depth+1)
			case "prefixItems":
				visitArray(v, depth+1)
			case "not":
				found["not"] = true
				visit(v, depth+1, false)
			case "items", "additionalProperties", "if", "then", "else", "contains", "propertyNames":
				visit(v, depth+1, false)
			case "$defs", "definitions", "patternProperties", "dependentSchemas":
				visitValues(v, depth+1, false)
			case "properties":
				visitValues(v, depth+1, true)
			}
			return true
		})
		if property && !typed {
			found["untypedProperty"] = true
		}
	}
	for _, root := range []gjson.Result{input, output} {
		if !root.IsObject() {
			continue
		}
		var dialect gjson.Result
		root.ForEach(func(k, v gjson.Result) bool {
			if k.Str == "$schema" {
				dialect = v
				return false
			}
			return true
		})
		if dialect.Type == gjson.String && dialect.Str != "" {
			if isRedacted(dialect.Str) {
				found["ref"] = true
			} else if strings.TrimSuffix(dialect.Str, "#") != "https://json-schema.org/draft/2020-12/schema" {
				found["nonDefaultDialect"] = true
			}
		}
		visit(root, 0, false)
	}
	var kinds []string
	for _, k := range []string{"nonDefaultDialect", "oneOf", "anyOf", "allOf", "not", "ref", "externalRef", "untypedProperty"} {
		if found[k] {
			kinds = append(kinds, k)
		}
	}
	return kinds
}
