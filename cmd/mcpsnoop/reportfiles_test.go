package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Report files (--sarif, --junit, --json) are all-or-nothing per file: a
// file that cannot be written leaves no temp file behind, and check exits 2
// with nothing on stdout.

// strayLine is an invalid frame (a server printing to stdout), which the
// default gate fails on.
const strayLine = `{"session_id":"s1","server_label":"srv","seq":3,"ts":"2026-07-28T12:00:00.200Z","direction":"s2c","transport":"stdio","text":"[debug] handler done"}` + "\n"

func TestCheckReportWriteFailure(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	work := t.TempDir()
	t.Chdir(work)
	writeFile(t, "x.jsonl", []byte(callLines))
	writeFile(t, "a.sarif", []byte("OLD SARIF"))
	writeFile(t, "b.xml", []byte("OLD JUNIT"))
	writeFile(t, "c.json", []byte("OLD JSON"))
	writeFile(t, "existing-dir/keep.txt", []byte("keep"))

	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"junit into a folder that is a file", []string{"--junit", "a.sarif/b.xml"}, []string{"a.sarif/b.xml"}},
		{"junit onto a directory", []string{"--junit", "existing-dir"}, []string{"existing-dir"}},
		{"sarif under a file, sarif on stdout", []string{"--format", "sarif", "--sarif", "b.xml/sub/a.sarif"}, []string{"b.xml/sub/a.sarif"}},
		{"json onto a directory, junit on stdout", []string{"--format", "junit", "--json", "existing-dir"}, []string{"existing-dir"}},
		{"a later report is not written after a failure", []string{"--junit", "a.sarif/b.xml", "--json", "c.json"}, []string{"a.sarif/b.xml"}},
		{"no folder is made when another report fails", []string{"--sarif", "new/a.sarif", "--json", "existing-dir"}, []string{"existing-dir"}},
		{"a failing json leaves the junit target alone", []string{"--junit", "b.xml", "--json", "existing-dir/"}, []string{"existing-dir/"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, work)
			code, stdout, stderr := checkRun(t, "", append(tc.args, "x.jsonl")...)
			assertUsageFailure(t, code, stdout, stderr, tc.want...)
			d := diffSnapshots(before, snapshot(t, work))
			if len(d) > 0 {
				t.Errorf("the work folder changed (temp files left or reports touched): %v", d)
			}
		})
	}
}

// TestCheckReportsMakeTheirFolders: --sarif, --junit, --json and
// --write-known into folders that are not there yet (reports/ in a fresh
// CI checkout) make them, as mkdir -p would (0755 under the umask), and
// write the reports.
func TestCheckReportsMakeTheirFolders(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	work := t.TempDir()
	t.Chdir(work)
	writeFile(t, "x.jsonl", []byte(callLines+strayLine))
	code, stdout, stderr := checkRun(t, "", "--sarif", "reports/sarif/a.sarif", "--junit", "reports/b.xml",
		"--json", "out/c.json", "--write-known", ".mcpsnoop/known/k.txt", "x.jsonl")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "check failed") {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	for _, f := range []string{"reports/sarif/a.sarif", "reports/b.xml", "out/c.json", ".mcpsnoop/known/k.txt"} {
		if info, err := os.Stat(f); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if runtime.GOOS != "windows" {
		want := 0o755 &^ currentUmask()
		for _, d := range []string{"reports", "reports/sarif", "out", ".mcpsnoop", ".mcpsnoop/known"} {
			if info, err := os.Stat(d); err != nil || info.Mode().Perm() != want {
				t.Errorf("folder %s: %v (%v), want %v", d, info.Mode().Perm(), err, want)
			}
		}
	}
	if code, _, stderr := checkRun(t, "", "--known", ".mcpsnoop/known/k.txt", "x.jsonl"); code != 0 {
		t.Errorf("--known the file written: exit %d, %s", code, stderr)
	}
}

func TestCheckAllReports(t *testing.T) {
	for _, tc := range []struct {
		name    string
		log     string
		code    int
		results int // SARIF results, JUnit failures
	}{
		{"passed", callLines, 0, 0},
		{"findings", callLines + strayLine, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("MCPSNOOP_HOME", t.TempDir())
			work := t.TempDir()
			t.Chdir(work)
			writeFile(t, "x.jsonl", []byte(tc.log))
			writeFile(t, "b.xml", []byte("OLD JUNIT")) // replaced

			code, stdout, stderr := checkRun(t, "", "--sarif", "a.sarif", "--junit", "b.xml", "--json", "c.json", "--format", "text", "x.jsonl")
			if code != tc.code || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want exit %d and no stderr", code, stderr, tc.code)
			}
			_, text, _ := checkRun(t, "", "x.jsonl")
			if stdout != text || !strings.HasPrefix(stdout, "session s1: errors=0 ") {
				t.Errorf("stdout is not the text report:\n%s\nwant:\n%s", stdout, text)
			}

			entries, _ := os.ReadDir(".")
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
				if info, err := e.Info(); err == nil && !e.IsDir() && info.Mode().Perm() != 0o644 {
					t.Errorf("%s has mode %v, want 0644", e.Name(), info.Mode().Perm())
				}
			}
			sort.Strings(names)
			if got := strings.Join(names, " "); got != "a.sarif b.xml c.json x.jsonl" {
				t.Errorf("folder holds %s; want the log and three reports, no temp files", got)
			}

			sarifDoc := readFileString(t, "a.sarif")
			var sarifLog struct {
				Version string `json:"version"`
				Runs    []struct {
					Results []json.RawMessage `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(sarifDoc), &sarifLog); err != nil || sarifLog.Version != "2.1.0" || len(sarifLog.Runs) != 1 {
				t.Errorf("a.sarif: not a one-run SARIF 2.1.0 log (%v):\n%s", err, sarifDoc)
			} else if len(sarifLog.Runs[0].Results) != tc.results {
				t.Errorf("a.sarif: %d results, want %d", len(sarifLog.Runs[0].Results), tc.results)
			}
			junitDoc := readFileString(t, "b.xml")
			var suites struct {
				XMLName  xml.Name `xml:"testsuites"`
				Failures int      `xml:"failures,attr"`
			}
			if err := xml.Unmarshal([]byte(junitDoc), &suites); err != nil || suites.Failures != tc.results {
				t.Errorf("b.xml: want a testsuites document with %d failures (err %v):\n%s", tc.results, err, junitDoc)
			}
			rep := readJSONReport(t, "c.json")
			checkJSONReport(t, "c.json", rep, code)

			// The files hold what the same format prints on stdout.
			for format, doc := range map[string]string{"sarif": sarifDoc, "junit": junitDoc} {
				if _, out, _ := checkRun(t, "", "--format", format, "x.jsonl"); out != doc {
					t.Errorf("--%s file differs from --format %s on stdout", format, format)
				}
			}
		})
	}
}

func readFileString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Report files go to the target folder even when it is not the cwd.
func TestCheckReportInOtherFolder(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	logDir, outDir := t.TempDir(), t.TempDir()
	log := filepath.Join(logDir, "x.jsonl")
	writeFile(t, log, []byte(callLines))
	out := filepath.Join(outDir, "nested", "r.json")
	writeFile(t, out, []byte("OLD"))
	if code, _, stderr := checkRun(t, "", "--json", out, log); code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	checkJSONReport(t, out, readJSONReport(t, out), 0)
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries, want only r.json", filepath.Dir(out), len(entries))
	}
}
