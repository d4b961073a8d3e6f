package schemacheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// testdata/examples-2026-07-28 holds the example instances the
// specification publishes for 2026-07-28 (schema/2026-07-28/examples/ at the
// commit schemas/README.md names), one folder per definition.
const examplesDir = "testdata/examples-2026-07-28"

// validateAs checks raw against one definition of a revision, through the
// same decoder and issue wording as Validate.
func validateAs(t *testing.T, rev, def string, raw []byte) []wire.Issue {
	t.Helper()
	r := revisions[rev]
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	d := decoder{b: raw}
	v := validation{r: r, m: &wire.Message{Revision: rev}}
	if err := v.check(def, "", d.message("", "")); err != nil {
		t.Fatalf("%s %s: %v", rev, def, err)
	}
	return v.issues
}

type example struct {
	def, file string
	raw       []byte
}

func examples(t *testing.T) []example {
	t.Helper()
	dirs, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(examplesDir, d.Name(), "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, example{def: d.Name(), file: filepath.Base(f), raw: raw})
		}
	}
	if len(out) < 100 {
		t.Fatalf("found only %d examples under %s", len(out), examplesDir)
	}
	return out
}

// Every published example validates as the definition it illustrates.
func TestExamplesValidate(t *testing.T) {
	for _, ex := range examples(t) {
		if issues := validateAs(t, "2026-07-28", ex.def, ex.raw); len(issues) > 0 {
			t.Errorf("%s/%s: %+v", ex.def, ex.file, issues)
		}
	}
}

// A copy of each example with a required property removed, and one with a
// property of the wrong type, is rejected, and the issue points at what was
// changed.
func TestExamplesMutatedAreRejected(t *testing.T) {
	r := revisions["2026-07-28"]
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples(t) {
		var inst map[string]any
		if err := json.Unmarshal(ex.raw, &inst); err != nil {
			t.Fatalf("%s/%s: %v", ex.def, ex.file, err)
		}
		def, _ := r.defs[ex.def].(map[string]any)
		mutations := 0

		// A required property removed.
		if req, _ := def["required"].([]any); len(req) > 0 {
			for _, p := range req {
				name := p.(string)
				if _, ok := inst[name]; !ok {
					continue
				}
				mutated := clone(inst)
				delete(mutated, name)
				mutations++
				issues := validateAs(t, "2026-07-28", ex.def, marshal(t, mutated))
				if !hasIssue(issues, "", "required", `"`+name+`"`) {
					t.Errorf("%s/%s without %q: want a required issue at the root, got %+v", ex.def, ex.file, name, issues)
				}
				break
			}
		}

		// A property given a value of the wrong type.
		if name, bad := wrongType(r, def, inst); name != "" {
			mutated := clone(inst)
			mutated[name] = bad
			mutations++
			issues := validateAs(t, "2026-07-28", ex.def, marshal(t, mutated))
			if !hasIssue(issues, "/"+name, "", "") {
				t.Errorf("%s/%s with %s = %v: want an issue at /%s, got %+v", ex.def, ex.file, name, bad, name, issues)
			}
		}

		// The instance itself of the wrong type.
		mutations++
		if issues := validateAs(t, "2026-07-28", ex.def, []byte(`[1]`)); !hasIssue(issues, "", "type", "is array, want object") {
			t.Errorf("%s/%s as an array: got %+v", ex.def, ex.file, issues)
		}
		if mutations < 2 {
			t.Errorf("%s/%s: only %d mutation applies", ex.def, ex.file, mutations)
		}
	}
}

// wrongType picks a property of inst whose schema states a type or a
// constant and returns it with a value of another type.
func wrongType(r *revision, def map[string]any, inst map[string]any) (string, any) {
	props, _ := def["properties"].(map[string]any)
	names := make([]string, 0, len(inst))
	for n := range inst {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		if ref := refName(p); ref != "" {
			p, _ = r.defs[ref].(map[string]any)
		}
		if p == nil {
			continue
		}
		typ, _ := p["type"].(string)
		if typ == "" {
			if _, isConst := p["const"]; !isConst {
				continue
			}
		}
		if typ == "object" || typ == "array" || typ == "boolean" {
			return n, "not-a-" + typ
		}
		if typ == "string" || typ == "" {
			return n, []any{true}
		}
		return n, map[string]any{"x": 1}
	}
	// An open map (InputRequests and the like): a member of the wrong type.
	if ap, ok := def["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
		for _, n := range names {
			return n, 12345
		}
	}
	return "", nil
}

func hasIssue(issues []wire.Issue, ptr, keyword, text string) bool {
	for _, is := range issues {
		if is.Pointer == ptr && (keyword == "" || is.Keyword == keyword) && strings.Contains(is.Message, text) {
			return true
		}
	}
	return false
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
