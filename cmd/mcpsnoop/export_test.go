package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/export"
)

// Bad input never half-exports: exit 2, nothing on stdout, one stderr line
// naming the input, and nothing written beside the logs.
func TestExportBadInput(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	t.Chdir(t.TempDir())
	files := map[string][]byte{
		"x.jsonl":            []byte(callLines),
		"empty.jsonl":        nil,
		"binary.jsonl":       binaryBytes(4096),
		"not-json.jsonl":     []byte("this is not json\n" + callLines), // no log: a bad line after a frame is read on (TestExportReadsOnPastABadLine)
		"no-session.jsonl":   []byte(`{"seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"),
		"only-empty/a.jsonl": nil,
	}
	for name, data := range files {
		writeFile(t, name, data)
	}
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{name: "missing path", args: []string{"missing.jsonl"}, want: []string{`"missing.jsonl"`, "not found"}},
		{name: "unknown session id", args: []string{"abc123"}, want: []string{`no session "abc123"`, filepath.Join(home, "sessions")}},
		{name: "empty state dir", want: []string{"no session logs to read: none were named", filepath.Join(home, "sessions"), "MCPSNOOP_LOG_DIR"}},
		{name: "directory of empty logs", args: []string{"only-empty"}, want: []string{"only-empty", "empty"}},
		{name: "stdin twice", args: []string{"-", "-"}, want: []string{"(-)", "once"}},
		{name: "empty file", args: []string{"empty.jsonl"}, want: []string{"empty.jsonl", "no envelopes found"}},
		{name: "empty stdin", args: []string{"-"}, want: []string{"stdin", "no envelopes found"}},
		{name: "binary file", args: []string{"binary.jsonl"}, want: []string{"binary.jsonl", "line 1"}},
		{name: "line not JSON", args: []string{"-T", "html", "x.jsonl", "not-json.jsonl"}, want: []string{"not-json.jsonl", "line 1"}},
		{name: "objects without session_id", args: []string{"no-session.jsonl"}, want: []string{"no-session.jsonl", "no envelopes found"}},
		{name: "unknown format", args: []string{"-T", "pdf", "x.jsonl"}, want: []string{`unknown export format "pdf" (want ` + wantFormats() + ")"}},
		{name: "empty format", args: []string{"--format", " ", "x.jsonl"}, want: []string{`unknown export format " "`}},
		{name: "unknown flag", args: []string{"--bogus", "x.jsonl"}, want: []string{"--bogus", "unknown flag"}},
		{name: "bad redact pattern", args: []string{"--redact-value", "(", "x.jsonl"}, want: []string{"("}},
		{name: "bad redact path", args: []string{"--redact-path", "$[", "x.jsonl"}, want: []string{"$["}},
		{name: "unknown run", args: []string{"--run", "t-0000", "x.jsonl"}, want: []string{`run "t-0000" not found`, "x.jsonl"}},
		{name: "run from stdin", args: []string{"--run", "latest", "-"}, want: []string{"--run", "(-)"}},
		{name: "bad input writes no file", args: []string{"-o", "out.json", "not-json.jsonl"}, want: []string{"not-json.jsonl", "line 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, ".")
			code, stdout, stderr := exportRun(t, c.stdin, c.args...)
			assertUsageFailure(t, code, stdout, stderr, c.want...)
			if d := diffSnapshots(before, snapshot(t, ".")); len(d) > 0 {
				t.Errorf("the failed export changed files: %v", d)
			}
		})
	}
	if w := wantFormats(); !strings.HasPrefix(w, "json, html, ") || !strings.Contains(w, "text") {
		t.Errorf("formats listed as %q", wantFormats())
	}
}

// A line that cannot be read after the log's first frame is one lost
// frame: the export goes on with the frames after it.
func TestExportReadsOnPastABadLine(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "mid.jsonl", []byte(callLines+"this is not json\n"+strings.ReplaceAll(callLines, `"s1"`, `"s2"`)))
	code, stdout, stderr := exportRun(t, "", "-T", "text", "mid.jsonl")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "s1") || !strings.Contains(stdout, "s2") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// The format name is case-insensitive and trimmed; no input means the
// newest non-empty log of the state directory, as json on stdout.
func TestExportFormatNameAndDefaultInput(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	older := strings.ReplaceAll(callLines, `"s1"`, `"older"`)
	writeFile(t, filepath.Join(home, "sessions", "older.jsonl"), []byte(older))
	writeFile(t, filepath.Join(home, "sessions", "newest.jsonl"), []byte(callLines))
	writeFile(t, filepath.Join(home, "sessions", "empty.jsonl"), nil)
	past := mustStat(t, filepath.Join(home, "sessions", "newest.jsonl")).ModTime().Add(-3600e9)
	os.Chtimes(filepath.Join(home, "sessions", "older.jsonl"), past, past)

	code, stdout, stderr := exportRun(t, "")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := decodeJSONStream(t, stdout)
	if len(docs) != 1 || docs[0].Session.ID != "s1" {
		t.Errorf("exported %+v, want the newest log's session s1", docs)
	}
	for _, name := range []string{" HTML ", "Text", "JSON\t"} {
		code, stdout, stderr := exportRun(t, "", "-T", name, filepath.Join(home, "sessions", "newest.jsonl"))
		if code != 0 || stdout == "" {
			t.Errorf("-T %q: exit %d: %s", name, code, stderr)
		}
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// An output that is one of the inputs, however it is spelled or linked, is
// refused before anything is read or written.
func TestExportRefusesToOverwriteAnInput(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "logs/x.jsonl", []byte(callLines))
	if err := os.Symlink("logs/x.jsonl", "link.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("logs/x.jsonl", "hard.jsonl"); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"-o", "logs/x.jsonl", "logs/x.jsonl"},
		{"-o", "./logs/../logs/x.jsonl", "logs/x.jsonl"},
		{"-o", "link.jsonl", "logs/x.jsonl"},
		{"-o", "logs/x.jsonl", "link.jsonl"},
		{"-o", "hard.jsonl", "logs/x.jsonl"},
		{"-T", "html", "-o", "logs/x.jsonl", "logs"},
	}
	for _, args := range cases {
		before := snapshot(t, ".")
		code, stdout, stderr := exportRun(t, "", args...)
		assertUsageFailure(t, code, stdout, stderr, "input and output refer to the same file")
		if d := diffSnapshots(before, snapshot(t, ".")); len(d) > 0 {
			t.Errorf("%v changed files: %v", args, d)
		}
	}
	// Standard input redirected from the file named as the output.
	f, err := os.Open("logs/x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut strings.Builder
	code := run([]string{"export", "-o", "hard.jsonl", "-"}, f, &out, &errOut)
	assertUsageFailure(t, code, out.String(), errOut.String(), "input and output refer to the same file", "stdin")
	if data, _ := os.ReadFile("logs/x.jsonl"); string(data) != callLines {
		t.Errorf("the input changed")
	}
}

// failingFormat renders like json and then fails while writing a session.
type failingFormat struct{ export.Format }

func (f failingFormat) Session(w io.Writer, s *export.Session) error {
	w.Write([]byte("half a document"))
	return errors.New("disk full (simulated)")
}

// -o writes through a temporary file: a failed export leaves the old file
// as it was and no temporary file behind; a good one replaces it whole, and
// creates the folder it needs.
func TestExportOutputIsAtomic(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines))
	writeFile(t, "out/report.json", []byte("old report\n"))
	exportFormats["failing-test"] = func() export.Format { return failingFormat{export.NewJSON()} }
	defer delete(exportFormats, "failing-test")

	code, stdout, stderr := exportRun(t, "", "-T", "failing-test", "-o", "out/report.json", "x.jsonl")
	assertUsageFailure(t, code, stdout, stderr, "disk full (simulated)", "out/report.json")
	if data, _ := os.ReadFile("out/report.json"); string(data) != "old report\n" {
		t.Errorf("the old file changed: %q", data)
	}
	if entries, _ := os.ReadDir("out"); len(entries) != 1 {
		t.Errorf("left behind in out/: %v", entries)
	}

	_, want, _ := exportRun(t, "", "x.jsonl")
	for _, target := range []string{"out/report.json", "new/dir/report.json"} {
		code, stdout, stderr = exportRun(t, "", "-o", target, "x.jsonl")
		if code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("-o %s: exit %d, stdout %q, stderr %q", target, code, stdout, stderr)
		}
		got, _ := os.ReadFile(target)
		if stripGenerated(string(got)) != stripGenerated(want) {
			t.Errorf("-o %s differs from the export on stdout", target)
		}
	}
}

var generatedAt = regexp.MustCompile(`"generated_at": "[^"]*"`)

func stripGenerated(s string) string { return generatedAt.ReplaceAllString(s, "") }

// Redaction reaches every export format and never the log.
func TestExportRedactsTheExportNotTheSource(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	log := frameLine(1, "00.000Z", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"token":"tok-SECRET-1","note":"key sk-abc123 here"}}}`) +
		frameLine(2, "00.100Z", "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"welcome, sk-abc123"}]}}`)
	writeFile(t, "x.jsonl", []byte(log))
	for _, format := range []string{"json", "text", "html"} {
		code, stdout, stderr := exportRun(t, "", "-T", format, "--redact-secrets", "--redact-value", `sk-[a-z0-9]+`, "x.jsonl")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		for _, secret := range []string{"tok-SECRET-1", "sk-abc123"} {
			if strings.Contains(stdout, secret) {
				t.Errorf("%s export carries %q", format, secret)
			}
		}
		if !strings.Contains(stdout, "[REDACTED]") {
			t.Errorf("%s export shows no [REDACTED]", format)
		}
	}
	if data, _ := os.ReadFile("x.jsonl"); string(data) != log {
		t.Errorf("redaction changed the log itself")
	}
}

// The user's answer to an elicitation reaches an export only inside the raw
// frames that carried it: not in a call, not in the ledger, not in any other
// field (seed 002).
func TestExportElicitValueOnlyInRawFrames(t *testing.T) {
	t.Chdir("../..")
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	const value = "zed-unique-7731"

	_, out, _ := exportRun(t, "", "-T", "json", "fixtures/elicit.jsonl")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, value) {
		t.Fatal("the raw frames should still carry the answer")
	}
	for _, ev := range doc["events"].([]any) {
		delete(ev.(map[string]any), "raw")
	}
	if rest, _ := json.Marshal(doc); strings.Contains(string(rest), value) {
		t.Errorf("json: the answer appears outside the raw frames")
	}

	_, out, _ = exportRun(t, "", "-T", "text", "fixtures/elicit.jsonl")
	inRaw := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "{":
			inRaw = true
		case line == "}":
			inRaw = false
		case strings.Contains(line, value) && !inRaw:
			t.Errorf("text: the answer appears outside a raw frame: %q", line)
		}
	}

	_, out, _ = exportRun(t, "", "-T", "html", "fixtures/elicit.jsonl")
	data := htmlSessionData(t, out)[0]
	for _, ev := range data["events"].([]any) {
		delete(ev.(map[string]any), "raw")
	}
	if rest, _ := json.Marshal(data); strings.Contains(string(rest), value) {
		t.Errorf("html: the answer appears outside the raw frames")
	}
	if strings.Contains(strings.Split(out, `class="mcpsnoop-session"`)[0], value) {
		t.Errorf("html: the answer appears in the page around the data")
	}
}

var sessionBlock = regexp.MustCompile(`(?s)<script type="application/json" class="mcpsnoop-session"[^>]*>(.*?)</script>`)

// htmlSessionData parses the data element of every session of a page.
func htmlSessionData(t *testing.T, page string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range sessionBlock.FindAllStringSubmatch(page, -1) {
		var d map[string]any
		if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
			t.Fatalf("session data does not parse: %v", err)
		}
		out = append(out, d)
	}
	return out
}

// --run exports every session of the run, in the order of their first
// frames.
func TestExportRun(t *testing.T) {
	t.Chdir("../..")
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	code, out, stderr := exportRun(t, "", "-T", "text", "--run", "latest", "fixtures/run-traced")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	re := regexp.MustCompile(`(?m)^mcpsnoop session (\S+)`)
	var ids []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	if got := strings.Join(ids, " "); got != "files-97144-f2a752e6b438 github-97145-6513269e0d37 search-97146-0c5ca6a3a450" {
		t.Errorf("sessions %s", got)
	}
}
