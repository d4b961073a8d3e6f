package baseline_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// conformance is where the reference's own baseline files are kept.
const conformance = "../fixtures/conformance"

// defs reads tools/list tool objects.
func defs(t *testing.T, tools ...string) []tooldef.Tool {
	t.Helper()
	out := []tooldef.Tool{}
	for _, s := range tools {
		d, ok := tooldef.Parse([]byte(s))
		if !ok {
			t.Fatalf("Parse(%s) not ok", s)
		}
		out = append(out, d)
	}
	return out
}

// storeWith is a Store whose directory holds content as label's baseline.
func storeWith(t *testing.T, label, content string) baseline.Store {
	t.Helper()
	s := baseline.Store{Dir: t.TempDir()}
	if err := os.WriteFile(s.Path(label), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPath(t *testing.T) {
	s := baseline.Store{Dir: "dir"}
	for label, want := range map[string]string{
		"server.py": "791d4d41d3718d15d49180f3aacc8370.json", // capture-store-export.md section 1
		"srv":       "5e12afeaaf89408e6914798bc50be204.json", // the conformance fixtures
	} {
		if got := s.Path(label); got != filepath.Join("dir", want) {
			t.Errorf("Path(%q) = %s, want dir/%s", label, got, want)
		}
	}
}

func TestLoadConformanceFixtures(t *testing.T) {
	v1Tools := func(desc string) []tooldef.Tool {
		return []tooldef.Tool{{Name: "a", Description: desc, InputSchema: []byte(`{"type":"object"}`)}}
	}
	tests := []struct {
		fixture string
		version int
		tools   []tooldef.Tool
		drift   []tooldef.DriftEntry // against the tools the fixture's log lists
		err     string
	}{
		{fixture: "drift-v1-baseline-unverified", version: 1, tools: v1Tools("d")},
		{fixture: "drift-v1-baseline-with-drift", version: 1, tools: v1Tools("old"),
			drift: []tooldef.DriftEntry{{Kind: tooldef.DriftDescription, Tool: "a"}}},
		{fixture: "drift-corrupt-baseline",
			err: `tool baseline "srv" is corrupt (invalid character 'n' looking for beginning of object key string); run mcpsnoop baseline --reset to trust the next complete tools/list`},
		{fixture: "drift-future-baseline-version",
			err: `tool baseline "srv" is version 3, newer than this mcpsnoop understands (2); upgrade mcpsnoop, or run mcpsnoop baseline --reset to record it afresh`},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := filepath.Join(conformance, tt.fixture+".baseline")
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("fixture not available: %v", err)
			}
			version, tools, err := baseline.Store{Dir: dir}.Load("srv", "")
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if tools != nil || version != 0 {
					t.Errorf("got version %d, tools %v along with the error", version, tools)
				}
				// Observe must not paper over a bad file with a new one.
				if _, err := (baseline.Store{Dir: dir}).Observe(checker.BaselineKey{Label: "srv"}, nil); err == nil || err.Error() != tt.err {
					t.Errorf("Observe err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if version != tt.version || !reflect.DeepEqual(tools, tt.tools) {
				t.Errorf("Load = %d, %+v; want %d, %+v", version, tools, tt.version, tt.tools)
			}
			// Both logs list the same tool; only the description is verified.
			listed := defs(t, `{"name":"a","description":"d","inputSchema":{"type":"object"},"title":"T","annotations":{"readOnlyHint":true}}`)
			drift, unverified := tooldef.Diff(tools, listed, version)
			for i := range drift {
				drift[i] = tooldef.DriftEntry{Kind: drift[i].Kind, Tool: drift[i].Tool} // which, not what: tooldef's tests
			}
			if !reflect.DeepEqual(drift, tt.drift) {
				t.Errorf("drift = %v, want %v", drift, tt.drift)
			}
			if want := []tooldef.DriftKind{tooldef.DriftTitle, tooldef.DriftOutputSchema, tooldef.DriftAnnotations, tooldef.DriftIcons}; !reflect.DeepEqual(unverified, want) {
				t.Errorf("unverified = %v, want %v", unverified, want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	const retired = `; run mcpsnoop baseline --reset to trust the next complete tools/list`
	const newer = `, newer than this mcpsnoop understands (2); upgrade mcpsnoop, or run mcpsnoop baseline --reset to record it afresh`
	tests := []struct {
		name    string
		content string
		version int
		tools   []tooldef.Tool
		err     string
	}{
		{name: "v2 all fields", version: 2,
			content: `{"version":2,"server":"srv","tools":[{"name":"a","description":"d","input_schema":{ "type" : "object" },"title":"T",
				"output_schema":{"b":1,"a":2},"annotations":{"readOnlyHint":true},"icons":[{"src":"x"}]},{"name":"b","input_schema":null}]}`,
			tools: []tooldef.Tool{
				{Name: "a", Description: "d", Title: "T", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"a":2,"b":1}`),
					Annotations: []byte(`{"readOnlyHint":true}`), Icons: []byte(`[{"src":"x"}]`)},
				{Name: "b", InputSchema: []byte(`null`)},
			}},
		{name: "v1 without input schema", version: 1,
			content: `{"version":1,"server":"srv","tools":[{"name":"a"}]}`,
			tools:   []tooldef.Tool{{Name: "a", InputSchema: []byte(`null`)}}},
		{name: "no tools", version: 2, content: `{"version":2,"server":"srv","tools":[]}`, tools: []tooldef.Tool{}},
		{name: "unknown fields ignored", version: 2, content: `{"version":2,"server":"srv","tools":[],"extra":true}`, tools: []tooldef.Tool{}},
		{name: "empty file", content: ``, err: `tool baseline "srv" is corrupt (unexpected end of JSON input)` + retired},
		{name: "truncated", content: `{"version":2,"server":"srv","tools":[`, err: `tool baseline "srv" is corrupt (unexpected end of JSON input)` + retired},
		{name: "other server", content: `{"version":2,"server":"other","tools":[]}`,
			err: `tool baseline "srv" records server "other"; run mcpsnoop baseline --reset to record this one`},
		{name: "v1 other server", content: `{"version":1,"server":"srv2","tools":[]}`,
			err: `tool baseline "srv" records server "srv2"; run mcpsnoop baseline --reset to record this one`},
		{name: "future version checked before server", content: `{"version":3,"server":"other","tools":[]}`,
			err: `tool baseline "srv" is version 3` + newer},
		{name: "version 0", content: `{"version":0,"server":"srv","tools":[]}`, err: `tool baseline "srv" is version 0` + newer},
		{name: "version missing", content: `{"server":"srv","tools":[]}`, err: `tool baseline "srv" is version 0` + newer},
		{name: "negative version", content: `{"version":-1,"server":"srv","tools":[]}`, err: `tool baseline "srv" is version -1` + newer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version, tools, err := storeWith(t, "srv", tt.content).Load("srv", "")
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if errors.Is(err, baseline.ErrNotFound) {
					t.Errorf("a bad file reads as no baseline")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if version != tt.version || !reflect.DeepEqual(tools, tt.tools) {
				t.Errorf("Load = %d, %+v; want %d, %+v", version, tools, tt.version, tt.tools)
			}
		})
	}
}

func TestLoadNotFound(t *testing.T) {
	for name, s := range map[string]baseline.Store{
		"empty dir":   {Dir: t.TempDir()},
		"missing dir": {Dir: filepath.Join(t.TempDir(), "nope")},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.Load("srv", "")
			if !errors.Is(err, baseline.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
		})
	}
	if _, _, err := (baseline.Store{Dir: t.TempDir()}).Load("", ""); !errors.Is(err, baseline.ErrNoLabel) {
		t.Errorf("empty label: err = %v, want ErrNoLabel", err)
	}
}

// TestLayoutMatchesReference writes the tools of the reference's version 1
// fixture and expects the reference's bytes, version aside.
func TestLayoutMatchesReference(t *testing.T) {
	for _, fixture := range []string{"drift-v1-baseline-unverified", "drift-v1-baseline-with-drift"} {
		t.Run(fixture, func(t *testing.T) {
			ref := baseline.Store{Dir: filepath.Join(conformance, fixture+".baseline")}
			want, err := os.ReadFile(ref.Path("srv"))
			if err != nil {
				t.Skipf("fixture not available: %v", err)
			}
			_, tools, err := ref.Load("srv", "")
			if err != nil {
				t.Fatal(err)
			}
			s := baseline.Store{Dir: t.TempDir()}
			if err := s.Accept("srv", "", tools); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(s.Path("srv"))
			want = bytes.Replace(want, []byte(`"version": 1,`), []byte(`"version": 2,`), 1)
			if !bytes.Equal(got, want) {
				t.Errorf("wrote\n%s\nreference layout\n%s", got, want)
			}
		})
	}
}

// TestGolden writes every field, out of order, with the characters an
// encoder is tempted to escape and numbers it is tempted to reformat.
func TestGolden(t *testing.T) {
	tools := defs(t,
		`{"name":"zeta","inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1.0,"minimum":-0,"multipleOf":1e3,"default":12345678901234567890}},"required":["n"]}}`,
		`{"name":"alpha","description":"Reads <a> & <b>; say \"hi\" ☃","title":"Alpha 😀","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"},
			"outputSchema":{"type":"object","properties":{}},"annotations":{"title":"A&B","readOnlyHint":true,"destructiveHint":false},
			"icons":[{"src":"https://example.com/a.png?x=1&y=2","mimeType":"image/png","sizes":["48x48"]},{"src":"data:image/svg+xml,<svg/>"}]}`,
		`{"name":"mid","description":"","title":"","annotations":{},"icons":[]}`,
	)
	s := baseline.Store{Dir: t.TempDir()}
	if err := s.Accept("my server <1>", "", tools); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(s.Path("my server <1>"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "all-fields.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wrote\n%s\nwant (%s)\n%s", got, golden, want)
	}

	// What was written reads back as what was given, in name order.
	version, back, err := s.Load("my server <1>", "")
	if err != nil {
		t.Fatal(err)
	}
	wantBack := []tooldef.Tool{tools[1], tools[2], tools[0]}
	if version != 2 || !reflect.DeepEqual(back, wantBack) {
		t.Errorf("read back %d\n%+v\nwant\n%+v", version, back, wantBack)
	}
	if entries, unverified := tooldef.Diff(back, tools, version); entries != nil || unverified != nil {
		t.Errorf("drift against itself: %v %v", entries, unverified)
	}
}
