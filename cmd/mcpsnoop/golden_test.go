package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The realistic captures under fixtures/ (single logs, and folders checked
// as one multi-input run) are checked in every report format and compared
// with fixtures/golden. After an intended change to a report:
//
//	go test ./cmd/mcpsnoop -run Golden -update
//
// then read the diff of fixtures/golden before committing it.

var update = flag.Bool("update", false, "rewrite the golden files under fixtures/golden")

const goldenDir = "fixtures/golden"

// goldenVariant is one check run of an input; its stdout goes to
// <input><suffix>, and the --json file, when jsonSuffix is set, to
// <input><jsonSuffix>.
type goldenVariant struct {
	suffix, jsonSuffix string
	args               []string
	only               string // the only input it applies to, if any
}

var goldenVariants = []goldenVariant{
	{suffix: ".text", jsonSuffix: ".json", args: []string{"--format", "text"}},
	{suffix: ".junit.xml", args: []string{"--format", "junit"}},
	{suffix: ".sarif", args: []string{"--format", "sarif"}},
	{suffix: "-max-duration-5s.text", jsonSuffix: "-max-duration-5s.json", args: []string{"--format", "text", "--max-duration", "5s"}, only: "mrtr"},
	{suffix: "-max-duration-5s.junit.xml", args: []string{"--format", "junit", "--max-duration", "5s"}, only: "mrtr"},
	{suffix: "-max-duration-5s.sarif", args: []string{"--format", "sarif", "--max-duration", "5s"}, only: "mrtr"},
	// Schema validation: one log per protocol revision, each with known-bad
	// frames (finding text, JSON pointer, SARIF line).
	{suffix: "-wire.text", jsonSuffix: "-wire.json", args: []string{"--format", "text", "-v", "--fail-on", "error,invalid,warn,wire"}, only: "revisions"},
	{suffix: "-wire.junit.xml", args: []string{"--format", "junit", "--fail-on", "error,invalid,warn,wire"}, only: "revisions"},
	{suffix: "-wire.sarif", args: []string{"--format", "sarif", "--fail-on", "error,invalid,warn,wire"}, only: "revisions"},
}

// goldenInputs lists fixtures/*.jsonl and the folders of logs beside them.
func goldenInputs(t *testing.T) map[string]string {
	entries, err := os.ReadDir("fixtures")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && name != "conformance" && name != "golden" && name != "captured": // captured/ pins its own verdicts (e2e/conformance)
			inputs[name] = "fixtures/" + name
		case !e.IsDir() && strings.HasSuffix(name, ".jsonl"):
			inputs[strings.TrimSuffix(name, ".jsonl")] = "fixtures/" + name
		}
	}
	if len(inputs) == 0 {
		t.Fatal("no fixtures found")
	}
	return inputs
}

func TestGolden(t *testing.T) {
	t.Chdir("../..") // SARIF URIs are relative to the cwd: fixtures/...
	inputs := goldenInputs(t)
	for name, path := range inputs {
		t.Run(name, func(t *testing.T) {
			firstCode := -1
			for _, v := range goldenVariants {
				if v.only != "" && v.only != name {
					continue
				}
				code := runGolden(t, name, path, v)
				if v.only == "" {
					if firstCode >= 0 && code != firstCode {
						t.Errorf("%s: exit %d, but %d with another format", v.suffix, code, firstCode)
					}
					firstCode = code
				}
			}
		})
	}
	if *update {
		return
	}
	// Every golden file belongs to an input that still exists.
	goldens, _ := filepath.Glob(filepath.Join(goldenDir, "*"))
	for _, g := range goldens {
		base := filepath.Base(g)
		owned := exportGoldenOwned(base)
		for name := range inputs {
			for _, v := range goldenVariants {
				owned = owned || base == name+v.suffix || (v.jsonSuffix != "" && base == name+v.jsonSuffix)
			}
		}
		if !owned {
			t.Errorf("%s belongs to no fixture; remove it", g)
		}
	}
}

// runGolden runs one variant with a fresh state directory (check may record
// baselines there) and compares its outputs with the golden files.
func runGolden(t *testing.T, name, path string, v goldenVariant) int {
	t.Helper()
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	args := append([]string{}, v.args...)
	jsonPath := ""
	if v.jsonSuffix != "" {
		jsonPath = filepath.Join(t.TempDir(), "report.json")
		args = append(args, "--json", jsonPath)
	}
	code, stdout, stderr := checkRun(t, "", append(args, path)...)
	if (code != 0 && code != 1) || stderr != "" {
		t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
	}
	checkDocument(t, name+v.suffix, stdout)
	compareGolden(t, name+v.suffix, stdout)
	if jsonPath != "" {
		checkJSONReport(t, name+v.jsonSuffix, readJSONReport(t, jsonPath), code)
		// The report names the baseline folder, which lives in the fresh home.
		report := strings.ReplaceAll(readFileString(t, jsonPath), home, "$MCPSNOOP_HOME")
		compareGolden(t, name+v.jsonSuffix, report)
	}
	return code
}

// checkDocument checks that a report parses as its format.
func checkDocument(t *testing.T, file, doc string) {
	t.Helper()
	var err error
	switch {
	case strings.HasSuffix(file, ".sarif"):
		var v struct {
			Runs []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		err = json.Unmarshal([]byte(doc), &v)
		if err == nil && (len(v.Runs) != 1 || v.Runs[0].Results == nil) {
			err = fmt.Errorf("want one run with a results array")
		}
	case strings.HasSuffix(file, ".xml"):
		var v struct {
			XMLName xml.Name `xml:"testsuites"`
		}
		err = xml.Unmarshal([]byte(doc), &v)
	}
	if err != nil {
		t.Errorf("%s: %v", file, err)
	}
}

func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run go test ./cmd/mcpsnoop -run Golden -update)", err)
		return
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (-update rewrites it):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where two texts part.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\n--- want\n%s\n--- got\n%s", i+1, wl, gl)
		}
	}
	return "(same lines; the difference is in line endings)"
}

// jsonReportDoc is the part of the --json report the tests read.
type jsonReportDoc struct {
	Version  int             `json:"version"`
	Verdict  string          `json:"verdict"`
	Findings json.RawMessage `json:"findings"`
	Sessions []struct {
		SessionID string `json:"session_id"`
		Tools     []struct {
			Name           string `json:"name"`
			MaxResultBytes int    `json:"max_result_bytes"`
		} `json:"tools"`
	} `json:"sessions"`
}

func readJSONReport(t *testing.T, path string) jsonReportDoc {
	t.Helper()
	var rep jsonReportDoc
	if err := json.Unmarshal([]byte(readFileString(t, path)), &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rep
}

// checkJSONReport checks the report's fixed points against check's exit
// code.
func checkJSONReport(t *testing.T, name string, rep jsonReportDoc, code int) {
	t.Helper()
	if rep.Version != 1 {
		t.Errorf("%s: version %d, want 1", name, rep.Version)
	}
	if want := map[int]string{0: "passed", 1: "findings"}[code]; rep.Verdict != want {
		t.Errorf("%s: verdict %q with exit %d, want %q", name, rep.Verdict, code, want)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(rep.Findings), []byte("[")) {
		t.Errorf("%s: findings is %s, want an array", name, rep.Findings)
	}
}
