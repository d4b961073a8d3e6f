package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every output flag follows atomicfile's rule (its own tests cover the
// rule; these check that the commands use it): a report file that is
// standard output, a symbolic link kept while its target is replaced, two
// names for one file, an output that is an input.

// TestCheckReportOnStdout: --json - puts the JSON report on stdout in place
// of the text report (only one document per stream), also when stdout is a
// regular file, which is written to, not replaced; with --format given
// too, the two would share the stream and that is refused.
func TestCheckReportOnStdout(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines))

	code, stdout, stderr := checkRun(t, "", "--json", "-", "x.jsonl")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc struct {
		Version int    `json:"version"`
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Verdict != "passed" {
		t.Fatalf("stdout is not the JSON report (%v):\n%s", err, stdout)
	}

	// stdout redirected to a regular file: the report lands after what the
	// file held, in the same file.
	redirected, err := os.OpenFile("out.txt", os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer redirected.Close()
	redirected.WriteString("earlier line\n")
	before := mustStat(t, "out.txt")
	var errOut bytes.Buffer
	if code := run([]string{"check", "--sarif", "-", "x.jsonl"}, strings.NewReader(""), redirected, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := readFileString(t, "out.txt")
	if !strings.HasPrefix(got, "earlier line\n{") || !strings.Contains(got, `"version": "2.1.0"`) || !os.SameFile(before, mustStat(t, "out.txt")) {
		t.Errorf("the redirected stdout holds (same file %v):\n%s", os.SameFile(before, mustStat(t, "out.txt")), got)
	}

	for _, args := range [][]string{
		{"--format", "text", "--json", "-"},
		{"--format", "sarif", "--sarif", "-"},
	} {
		code, stdout, stderr := checkRun(t, "", append(args, "x.jsonl")...)
		assertUsageFailure(t, code, stdout, stderr, "both write to standard output")
	}
	code, stdout, stderr = checkRun(t, "", "--json", "-", "--sarif", "-", "x.jsonl")
	assertUsageFailure(t, code, stdout, stderr, "--json both name -")
}

// TestCheckReportThroughLinks: a report path that is a symbolic link has
// its target replaced and stays a link; one to a FIFO is written through
// (the /dev/stdout case, rebuilt in a temporary folder); two names of one
// file, or a link to an input, are refused before anything is read.
func TestCheckReportThroughLinks(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines))
	writeFile(t, "reports/junit.xml", []byte("OLD"))
	if err := os.Symlink("reports/junit.xml", "junit-link.xml"); err != nil {
		t.Fatal(err)
	}
	os.Symlink("x.jsonl", "log-link.json")
	os.Symlink("log-link.json", "log-link-2.json")

	code, _, stderr := checkRun(t, "", "--junit", "junit-link.xml", "x.jsonl")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if info, err := os.Lstat("junit-link.xml"); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("junit-link.xml is no longer a link")
	}
	if got := readFileString(t, "reports/junit.xml"); !strings.Contains(got, "<testsuites") {
		t.Errorf("the link's target holds %q", got)
	}
	if entries, _ := os.ReadDir("reports"); len(entries) != 1 {
		t.Errorf("reports/ holds %d entries, want the report alone", len(entries))
	}

	if fifo := makeFIFO(t, "pipe"); fifo != "" {
		os.Symlink(fifo, "sarif-link")
		got := readFIFO(t, fifo)
		code, _, stderr := checkRun(t, "", "--sarif", "sarif-link", "x.jsonl")
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if s := got(); !strings.Contains(s, `"version": "2.1.0"`) {
			t.Errorf("the fifo's reader got %q", s)
		}
		assertFileType(t, "sarif-link", os.ModeSymlink)
		assertFileType(t, fifo, os.ModeNamedPipe)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sarif", "reports/junit.xml", "--junit", "junit-link.xml"}, "--sarif and --junit both name junit-link.xml"},
		{[]string{"--sarif", "a.sarif", "--json", "./reports/../a.sarif"}, "--sarif and --json both name ./reports/../a.sarif"},
		{[]string{"--json", "log-link-2.json"}, "--json log-link-2.json would overwrite the input x.jsonl"},
	} {
		before := snapshot(t, ".")
		code, stdout, stderr := checkRun(t, "", append(tc.args, "x.jsonl")...)
		assertUsageFailure(t, code, stdout, stderr, tc.want)
		if d := diffSnapshots(before, snapshot(t, ".")); len(d) > 0 {
			t.Errorf("%v changed files: %v", tc.args, d)
		}
	}
}

// TestCheckGitHubFilesAreNotReports: in GitHub mode, the step's output and
// summary files are appended to, so neither may be an input or a report.
func TestCheckGitHubFilesAreNotReports(t *testing.T) {
	output, summary := githubStep(t)
	writeFile(t, "x.jsonl", []byte(callLines))
	code, stdout, stderr := checkRun(t, "", "--github", "--json", output, "x.jsonl")
	assertUsageFailure(t, code, stdout, stderr, "is the GitHub step file")
	for _, f := range []string{output, summary} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written to", f)
		}
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "x.jsonl")
	code, stdout, stderr = checkRun(t, "", "--github", "x.jsonl")
	assertUsageFailure(t, code, stdout, stderr, "the GitHub step file x.jsonl is the input x.jsonl")
	if got := readFileString(t, "x.jsonl"); got != callLines {
		t.Errorf("the log changed")
	}
}

// TestCheckGitHubReportOnStdout: a report on stdout names no file a later
// step could read, so its step output is empty; a file's is its absolute
// path.
func TestCheckGitHubReportOnStdout(t *testing.T) {
	output, _ := githubStep(t)
	writeFile(t, "x.jsonl", []byte(callLines))
	code, stdout, stderr := checkRun(t, "", "--github", "--sarif", "-", "--junit", "j.xml", "x.jsonl")
	if code != 0 || !strings.Contains(stdout, `"version": "2.1.0"`) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	out := readOutputs(t, output)
	if abs, _ := filepath.Abs("j.xml"); out["sarif"] != "" || out["junit"] != abs {
		t.Errorf("outputs sarif=%q junit=%q; want none and %s", out["sarif"], out["junit"], abs)
	}
}

// TestExportOutputs: export -o follows the same rule: - is stdout, a link
// keeps being a link, a FIFO is written through.
func TestExportOutputs(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines))
	_, want, _ := exportRun(t, "", "x.jsonl")
	if code, stdout, stderr := exportRun(t, "", "-o", "-", "x.jsonl"); code != 0 || stripGenerated(stdout) != stripGenerated(want) || stderr != "" {
		t.Errorf("-o -: exit %d, stderr %q", code, stderr)
	}
	writeFile(t, "out/real.json", []byte("OLD"))
	os.Symlink("out/real.json", "link.json")
	if code, _, stderr := exportRun(t, "", "-o", "link.json", "x.jsonl"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertFileType(t, "link.json", os.ModeSymlink)
	if got := readFileString(t, "out/real.json"); stripGenerated(got) != stripGenerated(want) {
		t.Errorf("the link's target holds %q", got)
	}
	if fifo := makeFIFO(t, "pipe"); fifo != "" {
		got := readFIFO(t, fifo)
		if code, _, stderr := exportRun(t, "", "-T", "text", "-o", fifo, "x.jsonl"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if s := got(); !strings.Contains(s, "mcpsnoop session") {
			t.Errorf("the fifo's reader got %q", s)
		}
		assertFileType(t, fifo, os.ModeNamedPipe)
	}
}

func assertFileType(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil || info.Mode().Type() != want {
		t.Errorf("%s: type %v (%v), want %v", path, info.Mode().Type(), err, want)
	}
}
