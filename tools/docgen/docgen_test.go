package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/mcpsnoop/mcpsnoop/report"
)

var update = flag.Bool("update", false, "rewrite docs/cli and docs/reference/rules.md")

// root is the repository, two folders up.
var root = filepath.Join("..", "..")

// TestReferencesAreCurrent regenerates docs/cli and the rule catalogue and
// compares them, byte for byte, with what is committed.
//
// Everything it reads (cmd/mcpsnoop's sources through a go build, the
// committed pages) lies outside this module, where go test's cache does
// not look: run it with -count=1, as .ci/run does, or a cached pass can
// hide a stale page.
func TestReferencesAreCurrent(t *testing.T) {
	gen, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := gen.write(root); err != nil {
			t.Fatal(err)
		}
		return
	}
	stale, err := gen.stale(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("the generated references are stale; regenerate them with\n\n\tgo -C tools/docgen run .\n\n(or: cd tools/docgen && go test ./... -update) and commit the result:\n\n%s",
			strings.Join(stale, "\n"))
	}
}

// The rule page holds a section per rule with everything the catalogue
// says of it, and the table a row per rule.
func TestRulesPageHoldsTheCatalogue(t *testing.T) {
	page := string(rulesPage())
	sections := strings.Split(page, "\n### ")[1:]
	rules := checker.Rules()
	if len(sections) != len(rules) {
		t.Fatalf("%d rule sections, the catalogue has %d rules", len(sections), len(rules))
	}
	for i, r := range rules {
		sec := sections[i]
		if !strings.HasPrefix(sec, r.ID+"\n") {
			t.Errorf("section %d is %q, want rule %s", i, strings.SplitN(sec, "\n", 2)[0], r.ID)
			continue
		}
		v := reflect.ValueOf(r)
		for j := range v.NumField() {
			f := v.Type().Field(j)
			if !f.IsExported() || f.Type.Kind() != reflect.String || v.Field(j).String() == "" {
				continue
			}
			want := v.Field(j).String()
			if f.Name == "Text" {
				want = report.RuleText(want) // its placeholders without their Go verbs
			}
			if !strings.Contains(sec, want) {
				t.Errorf("%s: the section does not say its %s %q", r.ID, f.Name, want)
			}
		}
		if r.Mismatch != strings.Contains(sec, "count as `mismatch` too") {
			t.Errorf("%s: Mismatch is %v, the section says otherwise", r.ID, r.Mismatch)
		}
		if r.HTTPOnly != strings.Contains(sec, "streamable HTTP only") {
			t.Errorf("%s: HTTPOnly is %v, the section says otherwise", r.ID, r.HTTPOnly)
		}
		for _, u := range r.SpecURLs() {
			if r.ID != checker.RuleWire && !strings.Contains(sec, "("+u.URL+")") {
				t.Errorf("%s: no link to %s", r.ID, u.URL)
			}
		}
		if !strings.Contains(page, "\n| ["+r.ID+"](#"+strings.ToLower(r.ID)+") |") {
			t.Errorf("%s: no row in the table", r.ID)
		}
	}
	// The catalogue writes its placeholders with Go verbs (<name %q>): the
	// page, table and sections, shows none.
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	for i, line := range strings.Split(page, "\n") {
		if strings.Contains(line, "](http") {
			line = regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(line, "]") // links may hold %-escapes
		}
		if v := verb.FindString(line); v != "" {
			t.Errorf("rules.md line %d shows %s: %q", i+1, v, line)
		}
	}
}

// A field added to checker.Rule shows up on the page without a change
// here: in the table's header and in every rule's section.
func TestRulesPageShowsFieldsItDoesNotKnow(t *testing.T) {
	saved := knownRuleFields
	t.Cleanup(func() { knownRuleFields = saved })
	knownRuleFields = []string{"ID", "Signal", "Text"} // as though Family, Gate, ... were new
	page := string(rulesPage())
	for _, f := range []string{"Family", "Gate", "Example", "Since"} {
		if !strings.Contains(page, " "+f+" |") || !strings.Contains(page, "* **"+f+"**: ") {
			t.Errorf("field %s is not shown as a column and in the sections", f)
		}
	}
}

// Every field of a frame and of the meta frame is named in the log format
// reference.
func TestLogFormatNamesEveryField(t *testing.T) {
	names := jsonNames(reflect.TypeFor[capture.Frame](), reflect.TypeFor[capture.SessionMeta]())
	assertNamed(t, "docs/reference/log-format.md", names)
}

// Every field of the check JSON report is named in its reference: those of
// the checker types it is made of, and every key of the golden reports
// (which also hold the fields of the report's own types).
func TestJSONReportNamesEveryField(t *testing.T) {
	names := jsonNames(
		reflect.TypeFor[checker.Counters](), reflect.TypeFor[checker.ToolStats](),
		reflect.TypeFor[checker.Interaction](), reflect.TypeFor[checker.Elicitation](),
		reflect.TypeFor[checker.BaselineResult](), reflect.TypeFor[checker.SchemaFinding](),
		reflect.TypeFor[checker.WireSummary](), reflect.TypeFor[checker.Run](),
		reflect.TypeFor[checker.KnownSummary](), reflect.TypeFor[checker.AssertionResult](),
		reflect.TypeFor[checker.RuleRef](), reflect.TypeFor[wire.Finding](),
	)
	goldens, err := filepath.Glob(filepath.Join(root, "fixtures", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	reports := 0
	for _, g := range goldens {
		if strings.HasSuffix(g, ".export.json") {
			continue
		}
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		keys(doc, names)
		reports++
	}
	if reports == 0 {
		t.Fatal("no golden check report under fixtures/golden")
	}
	assertNamed(t, "docs/reference/json-report.md", names)
}

// assertNamed fails for every name the page does not hold as `name`.
func assertNamed(t *testing.T, page string, names map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for n := range names {
		if !strings.Contains(string(b), "`"+n+"`") && !strings.Contains(string(b), `"`+n+`"`) {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%s does not name these fields; document them: %s", page, strings.Join(missing, ", "))
	}
}

// jsonNames collects the JSON field names of the types, and of the structs
// they hold, through pointers, slices and embedded structs.
func jsonNames(types ...reflect.Type) map[string]bool {
	names := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "time" {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			names[name] = true
			walk(f.Type)
		}
	}
	for _, t := range types {
		walk(t)
	}
	return names
}

// keys adds every object key in v to names.
func keys(v any, names map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			names[k] = true
			keys(e, names)
		}
	case []any:
		for _, e := range v {
			keys(e, names)
		}
	}
}
