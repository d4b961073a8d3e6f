package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// GitHub mode (check --github) and the codeclimate format, through the
// command line. The composite action around them is in action_test.go.

// githubStep points the GitHub variables at fresh files in a fresh work
// folder (also the workspace) and returns the two file paths.
func githubStep(t *testing.T) (output, summary string) {
	t.Helper()
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	work := t.TempDir()
	t.Chdir(work)
	files := t.TempDir()
	output, summary = filepath.Join(files, "output"), filepath.Join(files, "summary")
	t.Setenv("GITHUB_OUTPUT", output)
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_WORKSPACE", work)
	return output, summary
}

// readOutputs parses a GITHUB_OUTPUT file; later values win.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	out, err := parseFileCommand(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckGitHubNeedsAWorkflowStep(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines))
	for _, env := range [][2]string{{"", ""}, {"out", ""}, {"", "sum"}} {
		t.Setenv("GITHUB_OUTPUT", env[0])
		t.Setenv("GITHUB_STEP_SUMMARY", env[1])
		code, stdout, stderr := checkRun(t, "", "--github", "x.jsonl")
		assertUsageFailure(t, code, stdout, stderr, "--github needs the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY")
		for _, f := range []string{"out", "sum"} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s was written", f)
			}
		}
	}
	for _, flag := range []string{"--github-summary=false", "--github-annotations=3"} {
		code, stdout, stderr := checkRun(t, "", flag, "x.jsonl")
		assertUsageFailure(t, code, stdout, stderr, "needs --github")
	}
}

// TestPlainCheckLeavesGitHubAlone: without --github, check reads and writes
// none of GitHub's files and prints no workflow command.
func TestPlainCheckLeavesGitHubAlone(t *testing.T) {
	output, summary := githubStep(t)
	writeFile(t, output, []byte("keep\n"))
	writeFile(t, summary, []byte("keep\n"))
	writeFile(t, "x.jsonl", []byte(callLines+strayLine))
	code, stdout, stderr := checkRun(t, "", "x.jsonl")
	if code != 1 || stderr != "" || strings.Contains(stdout, "::") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, f := range []string{output, summary} {
		if data, _ := os.ReadFile(f); string(data) != "keep\n" {
			t.Errorf("%s changed: %q", f, data)
		}
	}
}

func TestCheckGitHubMode(t *testing.T) {
	output, summary := githubStep(t)
	writeFile(t, "logs/x.jsonl", []byte(callLines+strayLine))
	if err := os.Mkdir("out", 0o755); err != nil {
		t.Fatal(err)
	}
	_, plain, _ := checkRun(t, "", "logs/x.jsonl")

	code, stdout, stderr := checkRun(t, "", "--github", "--sarif", "out/r.sarif", "--junit", "out/j.xml", "logs/x.jsonl")
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// The report goes out between ::stop-commands:: and its token, so a
	// "::error" line smuggled into a session id is not obeyed.
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "::stop-commands::") ||
		lines[len(lines)-1] != "::"+strings.TrimPrefix(lines[0], "::stop-commands::")+"::" ||
		strings.Join(lines[1:len(lines)-1], "\n")+"\n" != plain {
		t.Errorf("stdout is not the guarded text report:\n%s\nwant it around:\n%s", stdout, plain)
	}
	wd, _ := os.Getwd()
	want := map[string]string{
		"outcome": "findings", "exit-code": "1", "errors": "0", "warnings": "0", "findings": "1",
		"sarif": filepath.Join(wd, "out", "r.sarif"), "junit": filepath.Join(wd, "out", "j.xml"),
	}
	got := readOutputs(t, output)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("output %s = %q, want %q", k, got[k], v)
		}
	}
	// Annotations go to stderr: the runner reads commands there too, and
	// stdout stays the report.
	wantAnn := "::error file=logs/x.jsonl,line=3,title=mcpsnoop/invalid [server]::session s1 line 3: "
	if !strings.HasPrefix(stderr, wantAnn) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one annotation starting %q", stderr, wantAnn)
	}
	sum, _ := os.ReadFile(summary)
	if !strings.Contains(string(sum), "## ❌ mcpsnoop check: findings") || !strings.Contains(string(sum), "**Failed signals:** invalid") {
		t.Errorf("summary:\n%s", sum)
	}

	// Switches.
	os.Remove(summary)
	code, _, stderr = checkRun(t, "", "--github", "--github-summary=false", "--github-annotations", "0", "logs/x.jsonl")
	if code != 1 || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(summary); !os.IsNotExist(err) {
		t.Errorf("--github-summary=false wrote a summary")
	}
	if got := readOutputs(t, output); got["sarif"] != "" || got["junit"] != "" {
		t.Errorf("outputs without report files: %v", got)
	}
}

// TestCheckGitHubSARIFFromASubfolder: in GitHub mode SARIF URIs are
// relative to the repository checkout, as code scanning resolves them, even
// when check runs in a subfolder.
func TestCheckGitHubSARIFFromASubfolder(t *testing.T) {
	githubStep(t)
	writeFile(t, "sub/logs/x.jsonl", []byte(callLines+strayLine))
	t.Chdir("sub")
	code, stdout, _ := checkRun(t, "", "--github", "--format", "sarif", "logs/x.jsonl")
	if code != 1 || !strings.Contains(stdout, `"uri": "sub/logs/x.jsonl"`) {
		t.Errorf("exit %d; SARIF does not point at sub/logs/x.jsonl:\n%s", code, stdout)
	}
	_, plain, _ := checkRun(t, "", "--format", "sarif", "logs/x.jsonl")
	if !strings.Contains(plain, `"uri": "logs/x.jsonl"`) {
		t.Errorf("without --github the URI is no longer relative to the working directory")
	}
}

// TestCheckGitHubExit2: a check that judged nothing keeps the exit-2
// contract (nothing on stdout, one line on stderr) and still sets outcome
// error and exit-code 2.
func TestCheckGitHubExit2(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing input", []string{"missing.jsonl"}, `session log "missing.jsonl" not found`},
		{"bad fail-on", []string{"--fail-on", "nope", "x.jsonl"}, "--fail-on must be none, or contain"},
		{"too many annotations", []string{"--github-annotations", "51", "x.jsonl"}, "--github-annotations must be between 0 and 50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			output, summary := githubStep(t)
			writeFile(t, "x.jsonl", []byte(callLines))
			code, stdout, stderr := checkRun(t, "", append([]string{"--github", "--sarif", "r.sarif"}, tc.args...)...)
			assertUsageFailure(t, code, stdout, stderr, tc.want)
			got := readOutputs(t, output)
			if got["outcome"] != "error" || got["exit-code"] != "2" || got["sarif"] != "" {
				t.Errorf("outputs = %v", got)
			}
			sum, _ := os.ReadFile(summary)
			if !strings.Contains(string(sum), "Nothing was checked: ") {
				t.Errorf("summary:\n%s", sum)
			}
			if _, err := os.Stat("r.sarif"); err == nil {
				t.Errorf("a SARIF file was written")
			}
		})
	}
}

// TestCheckGitHubUnwritableOutput: an output file GitHub mode cannot
// append to is exit 2, not a panic.
func TestCheckGitHubUnwritableOutput(t *testing.T) {
	githubStep(t)
	t.Setenv("GITHUB_OUTPUT", filepath.Join(t.TempDir(), "missing", "output"))
	writeFile(t, "x.jsonl", []byte(callLines))
	code, stdout, stderr := checkRun(t, "", "--github", "x.jsonl")
	assertUsageFailure(t, code, stdout, stderr, "github mode")
}

func TestCheckCodeClimate(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	root := actionPath(t)
	t.Chdir(root)
	prints := map[string][]string{}
	for _, dir := range []string{"fixtures/run-traced", "fixtures/run-untraced"} {
		t.Setenv("MCPSNOOP_HOME", t.TempDir()) // both runs record first-seen baselines
		code, stdout, stderr := checkRun(t, "", "--format", "codeclimate", dir)
		if code != 1 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", dir, code, stderr)
		}
		var issues []struct {
			Description string `json:"description"`
			CheckName   string `json:"check_name"`
			Fingerprint string `json:"fingerprint"`
			Severity    string `json:"severity"`
			Location    struct {
				Path  string `json:"path"`
				Lines struct {
					Begin int `json:"begin"`
				} `json:"lines"`
			} `json:"location"`
		}
		if err := json.Unmarshal([]byte(stdout), &issues); err != nil {
			t.Fatalf("%s: %v\n%s", dir, err, stdout)
		}
		for _, is := range issues {
			if is.Description == "" || is.CheckName == "" || len(is.Fingerprint) != 32 || is.Location.Lines.Begin < 1 ||
				!strings.HasPrefix(is.Location.Path, dir+"/") || !slices.Contains([]string{"major", "info"}, is.Severity) {
				t.Errorf("%s: issue %+v", dir, is)
			}
			prints[dir] = append(prints[dir], is.CheckName+" "+is.Severity+" "+is.Fingerprint)
		}
		slices.Sort(prints[dir])
	}
	// A re-capture of the same scenario keeps its issues.
	if a, b := prints["fixtures/run-traced"], prints["fixtures/run-untraced"]; len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("fingerprints differ between captures:\n%q\n%q", a, b)
	}

	// Standard input, named by --log-name.
	data, err := os.ReadFile("fixtures/run-traced/github-97145-6513269e0d37.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := checkRun(t, string(data), "--format", "codeclimate", "--log-name", "logs/github.jsonl", "-")
	if !strings.Contains(stdout, `"path": "logs/github.jsonl"`) {
		t.Errorf("stdin issues do not carry --log-name:\n%s", stdout)
	}
}
