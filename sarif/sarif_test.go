package sarif

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// repo is the work dir of every golden case; log paths are absolute so
// the goldens do not depend on where the tests run.
const repo = "/work/repo"

const s1Log = repo + "/logs/s1.jsonl"

// goldenCase is one report, rendered and compared with testdata/NAME.sarif.
type goldenCase struct {
	name string
	rep  *checker.Report
	opts Options
	// excerpt keeps only the first and last few results in the golden
	// file; the full output is still validated and checked.
	excerpt bool
	// allowed are multitool rules that may report errors for this case.
	allowed []string
	check   func(t *testing.T, doc *logDoc)
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{
			name: "clean",
			rep: &checker.Report{
				Verdict:  checker.Passed,
				FailOn:   checker.DefaultFailOn,
				Sessions: []*checker.SessionReport{{ID: "s1", Label: "srv", Source: checker.Source{Path: s1Log, Name: "logs/s1.jsonl", FirstLine: 1}}},
			},
			opts: Options{Version: "1.2.3", WorkDir: repo},
			check: func(t *testing.T, doc *logDoc) {
				if n := len(doc.Runs[0].Results); n != 0 {
					t.Errorf("clean report has %d results", n)
				}
			},
		},
		{
			name: "signals",
			rep:  findingsReport(signalFindings(s1Log)...),
			opts: Options{WorkDir: repo},
			check: func(t *testing.T, doc *logDoc) {
				if v := doc.Runs[0].Tool.Driver.Version; v != DevVersion {
					t.Errorf("version = %q, want %q", v, DevVersion)
				}
			},
		},
		{
			// No file to point at: no locations key, which code scanning
			// cannot ingest; that is what --log-name is for.
			name:    "stdin",
			rep:     findingsReport(signalFindings("")[:4]...),
			opts:    Options{Version: "1.2.3", WorkDir: repo},
			allowed: []string{"GH1015", "GH1017", "GH2012"},
			check: func(t *testing.T, doc *logDoc) {
				for i, r := range doc.Runs[0].Results {
					if r.Locations != nil {
						t.Errorf("result %d has locations %s", i, r.Locations)
					}
				}
			},
		},
		{
			name: "stdin-log-name",
			rep:  findingsReport(signalFindings("")[:4]...),
			opts: Options{Version: "1.2.3", WorkDir: repo, LogName: repo + "/captures/stdin capture.jsonl"},
		},
		{
			name: "paths",
			rep: findingsReport(
				finding(checker.SignalInvalid, checker.LevelError, repo+"/a dir#x/l.jsonl", 3, 3, "session s1 frame 3: frame on the protocol channel is not valid JSON-RPC"),
				finding(checker.SignalInvalid, checker.LevelError, "/home/user/state/sessions/s2.jsonl", 7, 7, "session s2 frame 7: frame on the protocol channel is not valid JSON-RPC"),
				finding(checker.SignalWarn, checker.LevelError, repo+"/logs/c:odd?name%.jsonl", 2, 2, "session s3 frame 2: <warning> & \"quotes\""),
				finding(checker.SignalWarn, checker.LevelError, repo+"/../repo-other/s4.jsonl", 1, 1, "session s4 frame 1: outside, next door"),
			),
			opts: Options{Version: "1.2.3", WorkDir: repo},
		},
		{
			name:    "cap",
			rep:     capReport(4998, 10),
			opts:    Options{Version: "1.2.3", WorkDir: repo},
			excerpt: true,
			check:   checkCap(4998, 1, 1, 5008, 9),
		},
	}
}

func TestWriteGolden(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("golden paths are Unix paths")
	}
	schema := compileSchema(t)
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.rep, tc.opts); err != nil {
				t.Fatalf("Write: %v", err)
			}
			out := buf.Bytes()
			validateSchema(t, schema, out)
			doc := checkInvariants(t, out)
			if tc.check != nil {
				tc.check(t, doc)
			}

			golden := out
			if tc.excerpt {
				golden = excerpt(t, out, 3)
			}
			compareGolden(t, filepath.Join("testdata", tc.name+".sarif"), golden)
		})
	}
}

// compareGolden compares got with the golden file, or rewrites it under
// -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./sarif/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first line where two documents differ.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// excerpt is out with only the first and last n results. It goes back
// through go-sarif's types, so keys keep Write's order; it keeps the cap's
// golden file small.
func excerpt(t *testing.T, out []byte, n int) []byte {
	t.Helper()
	doc, err := gosarif.FromBytes(out)
	if err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if len(run.Results) > 2*n {
		run.Results = append(run.Results[:n:n], run.Results[len(run.Results)-n:]...)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestWriteRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    checker.Finding
		want string
	}{
		{"unknown rule", checker.Finding{RuleID: "mcpsnoop/nope", Level: checker.LevelError, SessionID: "s1", Seq: 4}, `unknown rule id "mcpsnoop/nope"`},
		{"no rule", checker.Finding{Level: checker.LevelNote, SessionID: "s1"}, `unknown rule id ""`},
		{"bad level", checker.Finding{RuleID: checker.RuleAssertion, Level: "fatal", SessionID: "s1"}, `invalid level "fatal"`},
		{"no level", checker.Finding{Signal: checker.SignalWarn, SessionID: "s1"}, `invalid level ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, findingsReport(tc.f), Options{WorkDir: repo})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write error = %v, want one containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

// TestWriteSignalFallback: a finding with a Signal but no RuleID is
// reported under the signal's rule.
func TestWriteSignalFallback(t *testing.T) {
	var buf bytes.Buffer
	f := checker.Finding{Signal: checker.SignalDrift, Level: checker.LevelNote, Message: "m"}
	if err := Write(&buf, findingsReport(f), Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	doc := checkInvariants(t, buf.Bytes())
	if r := doc.Runs[0].Results[0]; r.RuleID != "mcpsnoop/drift" || r.RuleIndex != 6 {
		t.Errorf("result rule = %s #%d, want mcpsnoop/drift #6", r.RuleID, r.RuleIndex)
	}
}

// TestWriteNilReport: no report still makes a valid, empty log.
func TestWriteNilReport(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	validateSchema(t, compileSchema(t), buf.Bytes())
	checkInvariants(t, buf.Bytes())
}
