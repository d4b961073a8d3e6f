package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/ingest"
)

// check reads its inputs in parallel (package ingest). What it prints and
// writes must be byte for byte what reading them in order gives, in every
// format, for every fixture and conformance case: the whole fixtures
// folder at once (with copies), each conformance case with its own flags
// and its log cut into pieces (its sessions span files), and all the cases
// at once.
func TestCheckParallelIsSerial(t *testing.T) {
	t.Chdir("../..") // SARIF URIs are relative to the cwd, as in CI
	work := t.TempDir()
	fixtures := []string{"fixtures/devtools-60calls.jsonl", "fixtures/elicit.jsonl", "fixtures/mrtr.jsonl",
		"fixtures/store-example.jsonl", "fixtures/revisions", "fixtures/run-traced", "fixtures/run-untraced", "fixtures/sdk-ts"}
	if got := goldenInputCount(t); got != len(fixtures) {
		t.Fatalf("fixtures/ holds %d inputs, this test names %d: add the new one", got, len(fixtures))
	}
	copies := filepath.Join(work, "copies")
	if err := os.MkdirAll(copies, 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, "fixtures/sdk-ts", copies)
	copyDir(t, "fixtures/run-traced", copies)

	type scenario struct {
		name     string
		args     []string
		inputs   []string
		baseline string // a folder of baselines, copied fresh for each run
	}
	scenarios := []scenario{
		{name: "fixtures", inputs: fixtures},
		{name: "fixtures -v --wire", args: []string{"-v", "--wire"}, inputs: fixtures},
		{name: "fixtures gated on wire", args: []string{"--fail-on", "error,invalid,warn,wire"}, inputs: fixtures},
		{name: "fixtures with assertions", args: []string{"--fail-on", "error,invalid,warn,pending,incomplete,drift,deprecated",
			"--expect-tool", "search", "--expect-tool", "files:read_file", "--forbid-tool", "delete_file",
			"--max-duration", "1ms", "--max-server-duration", "1ms", "--max-round-trips", "1"}, inputs: fixtures},
		{name: "fixtures and copies", inputs: append(append([]string{}, fixtures...), copies)},
		{name: "fixtures, a run", args: []string{"--run", "latest", "--expect-tool", "search"}, inputs: fixtures},
		{name: "fixtures, known", args: []string{"--write-known", "$OUT/known.txt"}, inputs: fixtures},
	}
	cases, _ := filepath.Glob("fixtures/conformance/*.jsonl")
	sort.Strings(cases)
	if len(cases) == 0 {
		t.Fatal("no conformance cases")
	}
	scenarios = append(scenarios, scenario{name: "every case at once", inputs: readableCases(t, cases)})
	pieces := filepath.Join(work, "pieces")
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".jsonl")
		sc := scenario{name: "case " + name, inputs: cutLog(t, c, filepath.Join(pieces, name), 3)}
		if data, err := os.ReadFile(strings.TrimSuffix(c, ".jsonl") + ".args"); err == nil {
			sc.args = strings.Fields(string(data))
		}
		if dir := strings.TrimSuffix(c, ".jsonl") + ".baseline"; exists(dir) {
			sc.baseline = dir
		}
		scenarios = append(scenarios, sc)
	}

	parallel, multiInput := 0, 0
	for _, sc := range scenarios {
		if len(sc.inputs) > 1 {
			multiInput++
		}
		var want map[string]string
		for _, workers := range []int{1, 2, 4} {
			got, parts := checkOutputs(t, work, workers, sc.args, sc.inputs, sc.baseline)
			if workers > 1 && parts > 0 {
				parallel++
			}
			if workers == 1 {
				if parts != 0 {
					t.Fatalf("%s: one worker merged %d parts", sc.name, parts)
				}
				want = got
				if testing.Verbose() {
					t.Logf("%s: exit %s", sc.name, got["run 0 ("+strings.Join(formatsOf(sc.args)[0], " ")+"): exit"])
				}
				continue
			}
			for _, k := range sortedKeys(want) {
				if got[k] != want[k] {
					t.Errorf("%s, %d workers: %s differs from reading in order:\n%s", sc.name, workers, k, lineDiff(want[k], got[k]))
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s, %d workers: outputs %v, in order %v", sc.name, workers, sortedKeys(got), sortedKeys(want))
			}
		}
	}
	// The comparison is worth something only if the inputs were read in
	// parallel: in every scenario with several inputs, with 2 and 4
	// workers.
	if several := 2 * multiInput; parallel != several {
		t.Errorf("read in parallel in %d runs, want %d", parallel, several)
	}
}

// checkOutputs runs check with workers in a fresh state folder (check
// records baselines) at the same path each time (reports name it), in
// every format, and returns what each output held: stdout and stderr of
// each run, its exit code, and every file it wrote; and the most engine
// parts a run merged.
func checkOutputs(t *testing.T, work string, workers int, args, inputs []string, baseline string) (map[string]string, int) {
	t.Helper()
	var stats ingest.Stats
	old := checkStats
	checkStats = &stats
	defer func() { checkStats = old }()
	parts := 0
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	home, out, base := filepath.Join(work, "home"), filepath.Join(work, "out"), filepath.Join(work, "baseline")
	got := map[string]string{}
	for i, f := range formatsOf(args) {
		for _, d := range []string{home, out, base} {
			if err := os.RemoveAll(d); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("MCPSNOOP_HOME", home)
		full := append(append([]string{"--jobs", fmt.Sprint(workers)}, args...), f...)
		if baseline != "" {
			copyDir(t, baseline, base)
			full = append(full, "--baseline", base)
		}
		for j := range full {
			full[j] = strings.ReplaceAll(full[j], "$OUT", out)
		}
		if hasFlag(full, "--github") {
			// A workflow step's files; the workspace is the cwd, as in CI.
			t.Setenv("GITHUB_OUTPUT", filepath.Join(out, "github-output"))
			t.Setenv("GITHUB_STEP_SUMMARY", filepath.Join(out, "github-summary"))
			t.Setenv("GITHUB_WORKSPACE", cwd)
		}
		stats = ingest.Stats{}
		code, stdout, stderr := checkRun(t, "", append(full, inputs...)...)
		parts = max(parts, stats.Parts)
		run := fmt.Sprintf("run %d (%s): ", i, strings.Join(f, " "))
		got[run+"exit"] = fmt.Sprint(code)
		got[run+"stdout"] = unrandom(stdout)
		got[run+"stderr"] = unrandom(stderr)
		for _, dir := range []string{out, base, home} {
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					data, _ := os.ReadFile(p)
					got[run+"file "+p] = unrandom(string(data))
				}
				return nil
			})
		}
	}
	return got, parts
}

// formatsOf is the runs checkOutputs makes for args: every format, on
// stdout or in a file, and GitHub mode (step outputs, job summary,
// annotations); a case that names its --format keeps it.
func formatsOf(args []string) [][]string {
	github := []string{"--github", "--sarif", "$OUT/report.sarif", "--junit", "$OUT/report.xml"}
	if hasFlag(args, "--format") {
		return [][]string{{"--json", "$OUT/report.json", "--sarif", "$OUT/report.sarif", "--junit", "$OUT/report.xml"}, github}
	}
	return [][]string{
		{"--format", "text", "--json", "$OUT/report.json", "--sarif", "$OUT/report.sarif", "--junit", "$OUT/report.xml"},
		{"--format", "codeclimate"},
		{"--format", "json"},
		github,
	}
}

// randomToken is what GitHub mode makes up afresh each run: the token
// that stops workflow commands around the text report.
var randomToken = regexp.MustCompile(`::stop-commands::[0-9a-f]{32}\n|\n::[0-9a-f]{32}::\n`)

// unrandom replaces randomToken by a placeholder, so that two runs can be
// compared.
func unrandom(s string) string {
	return randomToken.ReplaceAllStringFunc(s, func(tok string) string {
		if strings.HasPrefix(tok, "::stop-commands::") {
			return "::stop-commands::TOKEN\n"
		}
		return "\n::TOKEN::\n"
	})
}

// goldenInputCount is how many inputs fixtures/ holds: logs and folders.
func goldenInputCount(t *testing.T) int {
	entries, err := os.ReadDir("fixtures")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if (e.IsDir() && e.Name() != "conformance" && e.Name() != "golden" && e.Name() != "captured") || strings.HasSuffix(e.Name(), ".jsonl") {
			n++
		}
	}
	return n
}

// readableCases are the cases check can read (the others are bad input,
// which would stop a check of them all at the first).
func readableCases(t *testing.T, cases []string) []string {
	var out []string
	for _, c := range cases {
		if code, _, _ := checkRun(t, "", "--fail-on", "none", c); code == 0 {
			out = append(out, c)
		}
	}
	if len(out) < len(cases)/2 {
		t.Fatalf("only %d of %d cases readable", len(out), len(cases))
	}
	return out
}

// cutLog writes the log at path cut at line ends into n pieces under dir
// and returns their paths.
func cutLog(t *testing.T, path, dir string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	per := (len(lines) + n - 1) / n
	var out []string
	for i := 0; i < len(lines); i += per {
		piece := bytes.Join(lines[i:min(i+per, len(lines))], nil)
		if len(bytes.TrimSpace(piece)) == 0 {
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("piece%d.jsonl", len(out)))
		writeFile(t, p, piece)
		out = append(out, p)
	}
	return out
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineDiff shows the first line where two outputs part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n  in order: %s\n  parallel: %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines in order, %d in parallel", len(w), len(g))
}
