package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What check's reports say, through the command line: --format json and
// "-", GitHub mode's bare machine-readable stdout and truthful notices.

// fixture is the absolute path of a file under fixtures/.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckFormatJSON(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	log := fixture(t, "store-example.jsonl")
	file := filepath.Join(t.TempDir(), "r.json")
	code, viaFormat, stderr := checkRun(t, "", "--format", "json", "--json", file, log)
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	var doc struct {
		Verdict  string `json:"verdict"`
		Findings []struct {
			Message string `json:"message"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(viaFormat), &doc); err != nil || doc.Verdict != "findings" || len(doc.Findings) == 0 {
		t.Fatalf("--format json: %v\n%s", err, viaFormat)
	}
	written, _ := os.ReadFile(file)
	_, viaDash, _ := checkRun(t, "", "--json", "-", log)
	if string(written) != viaFormat || viaDash != viaFormat {
		t.Errorf("--format json, --json FILE and --json - differ")
	}
	_, sarifDash, _ := checkRun(t, "", "--sarif", "-", log)
	if !json.Valid([]byte(sarifDash)) || !strings.Contains(sarifDash, `"version": "2.1.0"`) {
		t.Errorf("--sarif - is not the SARIF document:\n%.300s", sarifDash)
	}
	code, stdout, stderr := checkRun(t, "", "--format", "json", "--sarif", "-", log)
	assertUsageFailure(t, code, stdout, stderr, "--format json and --sarif - both write to standard output")
}

// Under --github only the text report is guarded: a SARIF, JSON, JUnit or
// Code Quality document on stdout is the bare document, ready for a pipe.
func TestCheckGitHubBareDocuments(t *testing.T) {
	log := fixture(t, "store-example.jsonl")
	githubStep(t)
	jq, _ := exec.LookPath("jq")
	for _, format := range []string{"sarif", "json", "junit", "codeclimate"} {
		code, stdout, _ := checkRun(t, "", "--github", "--format", format, log)
		if code != 1 || strings.Contains(stdout, "::") {
			t.Errorf("%s: exit %d, stdout starts %.80q", format, code, stdout)
		}
		switch format {
		case "junit":
			if err := xml.Unmarshal([]byte(stdout), new(struct{})); err != nil {
				t.Errorf("junit: %v", err)
			}
		default:
			if !json.Valid([]byte(stdout)) {
				t.Errorf("%s: not JSON:\n%.300s", format, stdout)
			}
			if jq != "" {
				cmd := exec.Command(jq, ".")
				cmd.Stdin = strings.NewReader(stdout)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s | jq .: %v\n%.300s", format, err, out)
				}
			}
		}
	}
	if _, stdout, _ := checkRun(t, "", "--github", log); !strings.HasPrefix(stdout, "::stop-commands::") {
		t.Errorf("the text report is not guarded:\n%.200s", stdout)
	}
}

// The notice about the findings the annotations left out names only the
// reports that were written.
func TestCheckGitHubOverflowNotice(t *testing.T) {
	githubStep(t)
	var b strings.Builder
	b.WriteString(callLines)
	for i := range 60 { // 60 answers to nothing: W24 each
		b.WriteString(frameLine(3+i, fmt.Sprintf("01.%03dZ", i), "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, 100+i)))
	}
	writeFile(t, "logs/x.jsonl", []byte(b.String()))
	for _, tc := range []struct {
		args []string
		end  string
	}{
		{nil, "the job summary counts them, and a --sarif or --json report would list them"},
		{[]string{"--sarif", "r.sarif"}, "the job summary counts them and the SARIF report lists them"},
		{[]string{"--format", "json", "--junit", "j.xml"}, "the job summary counts them and the JSON and JUnit reports list them"},
	} {
		_, _, stderr := checkRun(t, "", append(append([]string{"--github"}, tc.args...), "logs/x.jsonl")...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if last := lines[len(lines)-1]; len(lines) != 50 || !strings.HasPrefix(last, "::notice title=mcpsnoop::11 more findings are not annotated") || !strings.HasSuffix(last, tc.end) {
			t.Errorf("%v: %d annotations, the last %q", tc.args, len(lines), last)
		}
	}
}

// --expect-tool and --forbid-tool are judged per run: in the seed's run of
// three servers, read_file was called (by files) and not by github.
func TestCheckToolAssertionsPerRun(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := fixture(t, "run-untraced")
	const run = "p-97001-1785601212"
	for _, tc := range []struct {
		args   []string
		code   int
		lines  []string
		server string
	}{
		{[]string{"--expect-tool", "read_file"}, 0, []string{"check passed"}, ""},
		{[]string{"--expect-tool", "read_file,web_search", "--expect-tool", "search_issues"}, 0, []string{"check passed"}, ""},
		{[]string{"--expect-tool", "github:read_file"}, 1, []string{
			`assertion failed: run ` + run + `: expected tool "read_file" was never called on server "github"`,
			"result: 1 assertion failed"}, "github"},
		{[]string{"--forbid-tool", "web_search"}, 1, []string{
			`assertion failed: run ` + run + `: forbidden tool "web_search" was called on server "search"`}, ""},
	} {
		args := append(append([]string{"--fail-on", "none"}, tc.args...), "--json", filepath.Join(t.TempDir(), "r.json"), dir)
		code, stdout, stderr := checkRun(t, "", args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args, code, tc.code, stdout, stderr)
		}
		for _, l := range tc.lines {
			if !strings.Contains(stdout, l+"\n") {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, l, stdout)
			}
		}
		if !strings.HasSuffix(stdout, tc.lines[len(tc.lines)-1]+"\n") && tc.code == 0 {
			t.Errorf("%v: the last line is not the verdict:\n%s", tc.args, stdout)
		}
		data, _ := os.ReadFile(args[len(args)-2])
		var doc struct {
			Assertions []struct {
				Name, Run, Server string
				SessionID         string `json:"session_id"`
				Passed            bool
			} `json:"assertions"`
		}
		json.Unmarshal(data, &doc)
		for _, a := range doc.Assertions {
			if a.Run != run || a.Server != tc.server || a.SessionID != "search-97486-95315d9dc9f8" {
				t.Errorf("%v: assertion %+v", tc.args, a)
			}
		}
		if len(doc.Assertions) == 0 {
			t.Errorf("%v: no assertions in the JSON report", tc.args)
		}
	}
	code, stdout, stderr := checkRun(t, "", "--expect-tool", "a,:b", dir)
	assertUsageFailure(t, code, stdout, stderr, `--expect-tool: ":b" names no server before its colon (SERVER:TOOL)`)
}

// The same log named several ways, or copied, is read once: the counts,
// the failed calls and the interactions are those of the log alone.
func TestCheckOverlappingInputs(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	mrtr := fixture(t, "mrtr.jsonl")
	work := t.TempDir()
	copyDir := filepath.Join(work, "artifacts")
	data, _ := os.ReadFile(mrtr)
	writeFile(t, filepath.Join(copyDir, "demo-copy.jsonl"), data)
	if err := os.Symlink(mrtr, filepath.Join(work, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	summary := func(args ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := checkRun(t, "", append([]string{"--max-duration", "5s", "--json", out}, args...)...)
		if code != 1 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		raw, _ := os.ReadFile(out)
		var doc struct {
			Sessions []struct {
				SessionID    string          `json:"session_id"`
				Counters     json.RawMessage `json:"counters"`
				Tools        json.RawMessage `json:"tools"`
				Interactions json.RawMessage `json:"interactions"`
			} `json:"sessions"`
			Assertions []struct{ Message string } `json:"assertions"`
		}
		json.Unmarshal(raw, &doc)
		var b strings.Builder
		for _, s := range doc.Sessions {
			if s.SessionID == "demo" {
				fmt.Fprintf(&b, "%s %s %s\n", s.Counters, s.Tools, s.Interactions)
			}
		}
		for _, a := range doc.Assertions {
			if strings.Contains(a.Message, "book_flight") {
				b.WriteString(a.Message + "\n")
			}
		}
		return b.String()
	}
	alone := summary(mrtr)
	if !strings.Contains(alone, "1 tool call exceeded the 5s budget") {
		t.Fatalf("alone:\n%s", alone)
	}
	for _, args := range [][]string{
		{mrtr, filepath.Dir(mrtr)}, // the example: a log and its folder
		{mrtr, mrtr},
		{filepath.Join(work, "link.jsonl"), mrtr},
		{mrtr, filepath.Join(copyDir, "demo-copy.jsonl")}, // a copy: the same session in two files
	} {
		if got := summary(args...); got != alone {
			t.Errorf("%v:\n%s\nwant, as the log alone:\n%s", args, got, alone)
		}
	}
	// Export and the viewer read through the same engine: one document,
	// one interaction, as many events as the log alone.
	export := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"export", "-T", "json"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("export %v: exit %d: %s", args, code, stderr.String())
		}
		var doc struct {
			Interactions []json.RawMessage `json:"interactions"`
			Calls        []json.RawMessage `json:"calls"`
			Events       []json.RawMessage `json:"events"`
		}
		dec := json.NewDecoder(&stdout)
		n := 0
		for dec.Decode(&doc) == nil {
			n++
		}
		return fmt.Sprintf("%d documents, %d interactions, %d calls, %d events", n, len(doc.Interactions), len(doc.Calls), len(doc.Events))
	}
	if a, b := export(mrtr), export(mrtr, filepath.Join(copyDir, "demo-copy.jsonl")); a != b {
		t.Errorf("export of the log and its copy: %s; the log alone: %s", b, a)
	}
	view := func(args ...string) int {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"open"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("open %v: exit %d: %s", args, code, stderr.String())
		}
		return strings.Count(stdout.String(), "\n")
	}
	if a, b := view(mrtr), view(mrtr, filepath.Join(copyDir, "demo-copy.jsonl")); a != b {
		t.Errorf("open of the log and its copy: %d lines; the log alone: %d", b, a)
	}
}
