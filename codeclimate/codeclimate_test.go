package codeclimate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// issueSchema states the fields GitLab documents for a Code Quality report
// (docs.gitlab.com, ci/testing/code_quality, "Code Quality report format"):
// an array of objects, each with a description, a check_name, a
// fingerprint, a severity of info, minor, major, critical or blocker, and a
// location with a path and lines.begin (a line, from 1).
const issueSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "array",
  "items": {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
      "description": {"type": "string", "minLength": 1},
      "check_name": {"type": "string", "minLength": 1},
      "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
      "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
      "location": {
        "type": "object",
        "required": ["path", "lines"],
        "properties": {
          "path": {"type": "string", "minLength": 1, "not": {"pattern": "^(/|\\.\\./|\\.\\.$)"}},
          "lines": {
            "type": "object",
            "required": ["begin"],
            "properties": {"begin": {"type": "integer", "minimum": 1}}
          }
        }
      }
    }
  }
}`

// validate checks a rendered report against the documented fields and
// what GitLab relies on beyond them: one issue per fingerprint.
func validate(t *testing.T, out []byte) []Issue {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := compileIssueSchema(t).Validate(inst); err != nil {
		t.Fatalf("does not match GitLab's documented fields: %v\n%s", err, out)
	}
	var issues []Issue
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&issues); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, is := range issues {
		if seen[is.Fingerprint] {
			t.Errorf("fingerprint %s is used twice; GitLab would show only one of them", is.Fingerprint)
		}
		seen[is.Fingerprint] = true
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.HasSuffix(out, []byte("\n\n")) {
		t.Errorf("output does not end in one newline")
	}
	return issues
}

func compileIssueSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	schema, err := jsonschema.UnmarshalJSON(strings.NewReader(issueSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("issue.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("issue.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestSchemaCatchesBadIssues keeps the schema honest.
func TestSchemaCatchesBadIssues(t *testing.T) {
	sch := compileIssueSchema(t)
	good := `{"description":"d","check_name":"c","fingerprint":"0123456789abcdef0123456789abcdef","severity":"major","location":{"path":"a.jsonl","lines":{"begin":1}}}`
	for _, doc := range []string{
		`{}`,
		`[{"check_name":"c","fingerprint":"0123456789abcdef0123456789abcdef","severity":"major","location":{"path":"a","lines":{"begin":1}}}]`,
		strings.Replace("["+good+"]", `"major"`, `"error"`, 1),
		strings.Replace("["+good+"]", `"begin":1`, `"begin":0`, 1),
		strings.Replace("["+good+"]", `"a.jsonl"`, `"/abs/a.jsonl"`, 1),
		strings.Replace("["+good+"]", `"a.jsonl"`, `"../a.jsonl"`, 1),
		strings.Replace("["+good+"]", `,"lines":{"begin":1}`, ``, 1),
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("schema accepts %s", doc)
		}
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader("[" + good + "]"))
	if err := sch.Validate(inst); err != nil {
		t.Errorf("schema refuses a good issue: %v", err)
	}
}

func finding(sig checker.Signal, level checker.Level, path string, line int, msg, print string) checker.Finding {
	return checker.Finding{Signal: sig, RuleID: sig.RuleID(), Level: level, SessionID: "s1", Path: path, Line: line, Message: msg, Fingerprint: print}
}

func render(t *testing.T, rep *checker.Report, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, rep, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	assertion := finding("", checker.LevelError, "logs/a.jsonl", 0, `session s1: forbidden tool "rm" was called`, "a1a1a1a1a1a1a1a1")
	assertion.RuleID = checker.RuleAssertion
	rep := &checker.Report{
		Verdict: checker.Failed, FailOn: checker.DefaultFailOn,
		Findings: []checker.Finding{
			finding(checker.SignalError, checker.LevelError, "logs/a.jsonl", 8, `session s1 frame 8: tools/call search (id 2) ended in an error: the result is marked isError`, "92553039767ea7f1"),
			// The same finding in a second session of the same server: same
			// finding fingerprint, distinct issue fingerprint.
			finding(checker.SignalError, checker.LevelError, filepath.Join(wd, "logs", "b.jsonl"), 8, `session s2 frame 8: tools/call search (id 2) ended in an error: the result is marked isError`, "92553039767ea7f1"),
			finding(checker.SignalIncomplete, checker.LevelNote, "logs/a.jsonl", 0, "session s1 has 2 dropped frames", "b2b2b2b2b2b2b2b2"),
			finding(checker.SignalDeprecated, checker.LevelNote, "", 5, "session s3 frame 5: logging is deprecated", ""),
			assertion,
		},
		FindingsTotal: 7, FindingsTruncated: 2,
	}
	out := render(t, rep, Options{LogName: "captured/stdin.jsonl"})
	issues := validate(t, out)
	paths := []string{}
	for _, is := range issues {
		paths = append(paths, is.Location.Path)
	}
	if want := []string{"logs/a.jsonl", "logs/b.jsonl", "logs/a.jsonl", "captured/stdin.jsonl", "logs/a.jsonl", "logs/a.jsonl"}; !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	golden := filepath.Join("testdata", "findings.json")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("output differs from %s (go test ./codeclimate -update rewrites it):\n%s", golden, out)
	}
}

func TestCleanAndEmpty(t *testing.T) {
	for _, rep := range []*checker.Report{nil, {Verdict: checker.Passed}} {
		out := render(t, rep, Options{})
		if string(out) != "[]\n" {
			t.Errorf("clean report = %q, want []", out)
		}
		validate(t, out)
	}
}

func TestStdinWithoutLogName(t *testing.T) {
	rep := &checker.Report{Findings: []checker.Finding{finding(checker.SignalError, checker.LevelError, "", 3, "m", "f")}, FindingsTotal: 1}
	issues := validate(t, render(t, rep, Options{}))
	if issues[0].Location.Path != StdinPath || issues[0].Location.Lines.Begin != 3 {
		t.Errorf("location = %+v", issues[0].Location)
	}
}

func TestWorkDirAndOutsidePaths(t *testing.T) {
	root := t.TempDir()
	rep := &checker.Report{Findings: []checker.Finding{
		finding(checker.SignalError, checker.LevelError, filepath.Join(root, "repo", "logs", "a.jsonl"), 1, "in", "1"),
		finding(checker.SignalError, checker.LevelError, filepath.Join(root, "other", "b.jsonl"), 1, "out", "2"),
	}, FindingsTotal: 2}
	var buf bytes.Buffer
	if err := Write(&buf, rep, Options{WorkDir: filepath.Join(root, "repo")}); err != nil {
		t.Fatal(err)
	}
	var issues []Issue
	if err := json.Unmarshal(buf.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	if issues[0].Location.Path != "logs/a.jsonl" || issues[1].Location.Path != filepath.ToSlash(filepath.Join(root, "other", "b.jsonl")) {
		t.Errorf("paths = %q, %q", issues[0].Location.Path, issues[1].Location.Path)
	}
}

// TestSeverity: what fails the gate is major, an observation is info; a
// gated security finding keeps its rule's rank.
func TestSeverity(t *testing.T) {
	sec := func(level checker.Level, sev string) *checker.Finding {
		return &checker.Finding{Level: level, Signal: checker.SignalSecurity, Security: &checker.SecurityDetail{Severity: sev}}
	}
	cases := []struct {
		f    *checker.Finding
		want string
	}{
		{&checker.Finding{Level: checker.LevelError}, SeverityMajor},
		{&checker.Finding{Level: checker.LevelNote}, SeverityInfo},
		{sec(checker.LevelError, "critical"), SeverityCritical},
		{sec(checker.LevelError, "high"), SeverityMajor},
		{sec(checker.LevelError, "medium"), SeverityMinor},
		{sec(checker.LevelError, "low"), SeverityMinor},
		{sec(checker.LevelNote, "critical"), SeverityInfo},
	}
	for i, tc := range cases {
		got := severity(tc.f)
		if got != tc.want {
			t.Errorf("case %d: severity %q, want %q", i, got, tc.want)
		}
		if !slices.Contains(Severities, got) {
			t.Errorf("%q is not a Code Quality severity", got)
		}
	}
}
