package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input never half-runs: check exits 2, prints nothing on stdout and
// exactly one line on stderr naming the input and the reason (interfaces.md,
// "Exit codes"), and it writes nothing beside the logs.

// frameLine is one envelope of session s1 on stdio, with raw as its message.
func frameLine(seq int, ts, dir, raw string) string {
	return fmt.Sprintf(`{"session_id":"s1","server_label":"srv","seq":%d,"ts":"2026-07-28T12:00:%s","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, ts, dir, raw)
}

// callLines is a tools/call answered 100 ms later.
var callLines = frameLine(1, "00.000Z", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`) +
	frameLine(2, "00.100Z", "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"1"}]}}`)

// checkRun runs `mcpsnoop check args...` in-process.
func checkRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"check"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every entry under dir to its content ("<dir>" for folders,
// the target for symbolic links),
// so a test can tell that nothing was created, removed or changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "<dir>"
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 { // the link itself: its target may be a FIFO
			dest, err := os.Readlink(p)
			out[rel] = "<link to " + dest + ">"
			return err
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var diffs []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			diffs = append(diffs, "removed "+p)
		case a != b:
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "created "+p)
		}
	}
	return diffs
}

// assertUsageFailure checks the exit-2 contract and that stderr names every
// string in want.
func assertUsageFailure(t *testing.T, code int, stdout, stderr string, want ...string) {
	t.Helper()
	if code != 2 {
		t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty:\n%s", stdout)
	}
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not exactly one line: %q", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not mention %q", stderr, w)
		}
	}
}

// binaryBytes is deterministic noise with NULs, starting with one.
func binaryBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[0], b[n/2] = 0, 0
	return b
}

func TestCheckBadInput(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	work := t.TempDir()
	t.Chdir(work)

	// A bad first line: the input is no log. (One after a frame is an
	// invalid frame and the check goes on: TestCheckUnreadableLineMidLog.)
	notJSON := "this is not json\n" + callLines
	gz := []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x0a}
	files := map[string][]byte{
		"x.jsonl":             []byte(callLines),
		"logs/a.jsonl":        []byte(callLines),
		"empty.jsonl":         nil,
		"binary.jsonl":        binaryBytes(4096),
		"gzipped.jsonl":       gz,
		"not-json.jsonl":      []byte(notJSON),
		"array.jsonl":         []byte("[1,2,3]\n"),
		"string.jsonl":        []byte(`"just a string"` + "\n"),
		"no-session.jsonl":    []byte(`{"seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n" + `{"session_id":"","seq":2}` + "\n"),
		"bad-ts.jsonl":        []byte(`{"session_id":"s1","seq":3,"ts":"yesterday","direction":"c2s"}` + "\n" + callLines),
		"only-empty/a.jsonl":  nil,
		"only-empty/b.jsonl":  nil,
		"no-logs/notes.txt":   []byte("not a log\n"),
		"no-logs/x.jsonl.bak": []byte(callLines),
	}
	for name, data := range files {
		writeFile(t, name, data)
	}
	if err := os.Mkdir("empty-dir", 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("x.jsonl")

	cases := []struct {
		name  string
		stdin string
		args  []string
		want  []string // substrings of the one stderr line
	}{
		// Inputs that cannot be found or read.
		{name: "missing path", args: []string{"missing.jsonl"}, want: []string{`"missing.jsonl"`, "not found"}},
		{name: "missing path in a folder", args: []string{"nope/x.jsonl"}, want: []string{`"nope/x.jsonl"`, "not found"}},
		{name: "missing after a good one", args: []string{"x.jsonl", "missing.jsonl"}, want: []string{`"missing.jsonl"`, "not found"}},
		{name: "unknown session id", args: []string{"abc123"}, want: []string{`no session "abc123"`, filepath.Join(home, "sessions")}},
		{name: "empty state dir", want: []string{"no session logs to read: none were named", filepath.Join(home, "sessions"), "MCPSNOOP_LOG_DIR"}},
		{name: "directory with no logs", args: []string{"no-logs"}, want: []string{"no-logs", "no session logs"}},
		{name: "empty directory", args: []string{"empty-dir"}, want: []string{"empty-dir", "no session logs"}},
		{name: "directory of empty logs", args: []string{"only-empty"}, want: []string{"only-empty", "empty"}},
		{name: "stdin twice", args: []string{"-", "-"}, want: []string{"(-)", "once"}},

		// Inputs that are not session logs.
		{name: "empty file", args: []string{"empty.jsonl"}, want: []string{"empty.jsonl", "no envelopes found"}},
		{name: "empty stdin", args: []string{"-"}, want: []string{"stdin", "no envelopes found"}},
		{name: "binary file", args: []string{"binary.jsonl"}, want: []string{"binary.jsonl", "line 1", "invalid JSONL envelope"}},
		{name: "gzipped log", args: []string{"gzipped.jsonl"}, want: []string{"gzipped.jsonl", "line 1", "invalid JSONL envelope"}},
		{name: "line not JSON", args: []string{"not-json.jsonl"}, want: []string{"not-json.jsonl", "line 1", "invalid JSONL envelope"}},
		{name: "line not JSON on stdin", stdin: notJSON, args: []string{"-"}, want: []string{"stdin: line 1", "invalid JSONL envelope"}},
		{name: "array value", args: []string{"array.jsonl"}, want: []string{"array.jsonl", "line 1", "an array"}},
		{name: "string value", args: []string{"string.jsonl"}, want: []string{"string.jsonl", "line 1", "a string"}},
		{name: "objects without session_id", args: []string{"no-session.jsonl"}, want: []string{"no-session.jsonl", "no envelopes found"}},
		{name: "unparsable ts", args: []string{"bad-ts.jsonl"}, want: []string{"bad-ts.jsonl", "line 1", `"yesterday"`}},
		{name: "first bad input in order, read in parallel", args: []string{"--jobs", "3", "x.jsonl", "not-json.jsonl", "binary.jsonl", "logs/a.jsonl"},
			want: []string{"not-json.jsonl", "line 1", "invalid JSONL envelope"}},

		// Bad flags.
		{name: "unknown flag", args: []string{"--bogus", "x.jsonl"}, want: []string{"--bogus", "unknown flag"}},
		{name: "empty fail-on", args: []string{"--fail-on", "", "x.jsonl"}, want: []string{"--fail-on", `got ""`}},
		{name: "trailing comma in fail-on", args: []string{"--fail-on", "error,", "x.jsonl"}, want: []string{"--fail-on", `got ""`}},
		{name: "unknown fail-on name", args: []string{"--fail-on", "error,nope", "x.jsonl"}, want: []string{"--fail-on", `got "nope"`}},
		{name: "fail-on is case-sensitive", args: []string{"--fail-on", "Error", "x.jsonl"}, want: []string{"--fail-on", `got "Error"`}},
		{name: "format xml", args: []string{"--format", "xml", "x.jsonl"}, want: []string{"--format", `"xml"`}},
		{name: "unparsable max-duration", args: []string{"--max-duration", "soon", "x.jsonl"}, want: []string{"--max-duration", `"soon"`}},
		{name: "negative jobs", args: []string{"--jobs", "-1", "x.jsonl"}, want: []string{"--jobs", "got -1"}},

		// Order of operations: --fail-on, then --format, then the input.
		{name: "bad fail-on wins over missing log", args: []string{"--fail-on", "nope", "missing.jsonl"}, want: []string{"--fail-on", `"nope"`}},
		{name: "bad fail-on wins over bad format", args: []string{"--format", "xml", "--fail-on", "nope", "x.jsonl"}, want: []string{"--fail-on", `"nope"`}},
		{name: "bad format wins over missing log", args: []string{"--format", "xml", "missing.jsonl"}, want: []string{"--format", `"xml"`}},
		{name: "bad input writes no report", args: []string{"--sarif", "out.sarif", "--json", "out.json", "not-json.jsonl"}, want: []string{"not-json.jsonl", "line 1"}},

		// A report that would replace one of the inputs.
		{name: "sarif over input", args: []string{"--sarif", "x.jsonl", "x.jsonl"}, want: []string{"--sarif", "x.jsonl", "overwrite"}},
		{name: "junit over input spelled ./", args: []string{"--junit", "./x.jsonl", "x.jsonl"}, want: []string{"--junit", "./x.jsonl", "overwrite"}},
		{name: "json over input spelled absolute", args: []string{"--json", abs, "x.jsonl"}, want: []string{"--json", abs, "overwrite"}},
		{name: "json over input spelled with ..", args: []string{"--json", "logs/../x.jsonl", "./x.jsonl"}, want: []string{"--json", "logs/../x.jsonl", "overwrite"}},
		{name: "json over a file of a directory input", args: []string{"--json", "logs/a.jsonl", "logs"}, want: []string{"--json", "logs/a.jsonl", "overwrite"}},
		{name: "sarif over a file of a directory input spelled differently", args: []string{"--sarif", "./logs//a.jsonl", "logs/"}, want: []string{"--sarif", "./logs//a.jsonl", "overwrite"}},
		{name: "later report over input", args: []string{"--sarif", "ok.sarif", "--json", "x.jsonl", "x.jsonl"}, want: []string{"--json", "overwrite"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, work)
			code, stdout, stderr := checkRun(t, tc.stdin, tc.args...)
			assertUsageFailure(t, code, stdout, stderr, tc.want...)
			if d := diffSnapshots(before, snapshot(t, work)); len(d) > 0 {
				t.Errorf("the work folder changed: %v", d)
			}
		})
	}
}

// A log whose writer was killed mid-line is checked; the torn line is one
// missing frame.
func TestCheckTornTail(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	writeFile(t, path, []byte(callLines+`{"session_id":"s1","server_label":"srv","seq":3,"ts":"2026-07-28T12:0`))
	for _, tc := range []struct {
		args []string
		code int
		last string
	}{
		{nil, 0, "check passed"},
		{[]string{"--fail-on", "incomplete"}, 1, "check failed: incomplete\nresult: 1 of 1 session failed the gate (incomplete)"},
	} {
		code, stdout, stderr := checkRun(t, "", append(tc.args, path)...)
		if code != tc.code || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit %d, no stderr", tc.args, code, stderr, tc.code)
		}
		if !strings.Contains(stdout, " missing_frames=1 ") || !strings.HasSuffix(stdout, tc.last+"\n") {
			t.Errorf("%v: want missing_frames=1 and %q, got:\n%s", tc.args, tc.last, stdout)
		}
	}
}

// A line that cannot be read after the log's first frame (not JSON, a
// field of the wrong type) is one invalid frame of the session read last,
// the transport's; the frames after it are checked, and a folder holding
// such a log checks every log in it.
func TestCheckUnreadableLineMidLog(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), []byte(callLines+"this is not json\n"+`{"session_id":"s1","seq":3,"ts":"yesterday","direction":"c2s"}`+"\n"+strings.ReplaceAll(callLines, `"s1"`, `"s2"`)))
	writeFile(t, filepath.Join(dir, "b.jsonl"), []byte(strings.ReplaceAll(callLines, `"s1"`, `"s3"`)))
	code, stdout, stderr := checkRun(t, "", dir)
	if code != 1 || stderr != "" || strings.Count(stdout, "a log line could not be read and was skipped") != 2 ||
		!strings.Contains(stdout, "session s2: ") || !strings.Contains(stdout, "session s3: ") || !strings.Contains(stdout, "check failed: invalid") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// A log appended to after a writer died mid-line: the torn line is one lost
// frame and the frames after it are checked.
func TestCheckTornLineMidLog(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "torn-middle.jsonl")
	writeFile(t, path, []byte(callLines+callLines[:60]+"\n"+strings.ReplaceAll(callLines, `"s1"`, `"s2"`)))
	code, stdout, stderr := checkRun(t, "", "--fail-on", "incomplete", path)
	if code != 1 || stderr != "" || !strings.Contains(stdout, "session s1: ") || !strings.Contains(stdout, "session s2: ") ||
		!strings.Contains(stdout, "check failed: incomplete") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// A single 100 MB frame is an ordinary frame. The log is streamed to disk so
// the test itself holds only a small buffer.
func TestCheckHugeFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB log")
	}
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(frameLine(1, "00.000Z", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}`))
	w.WriteString(`{"session_id":"s1","server_label":"srv","seq":2,"ts":"2026-07-28T12:00:01.000Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`)
	const mib, size = 1 << 20, 100
	chunk := bytes.Repeat([]byte("abcdefgh"), mib/8)
	for range size {
		w.Write(chunk)
	}
	w.WriteString(`"}]}}}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	jsonPath := filepath.Join(dir, "report.json")
	code, stdout, stderr := checkRun(t, "", "--json", jsonPath, path)
	if code != 0 || stderr != "" || !strings.HasSuffix(stdout, "check passed\n") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	rep := readJSONReport(t, jsonPath)
	if len(rep.Sessions) != 1 || len(rep.Sessions[0].Tools) != 1 {
		t.Fatalf("want one session with one tool, got %+v", rep.Sessions)
	}
	if got := rep.Sessions[0].Tools[0].MaxResultBytes; got < size*mib {
		t.Errorf("max_result_bytes = %d, want at least %d", got, size*mib)
	}
}

// A report path that is the file standard input is redirected from
// (`check --json run.jsonl - < run.jsonl`) is refused like any other
// input, and the log is left as it was.
func TestCheckReportOverRedirectedStdin(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "run.jsonl")
	writeFile(t, path, []byte(callLines))
	for _, flag := range []string{"--json", "--sarif", "--junit"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := run([]string{"check", flag, path, "-"}, f, &out, &errOut)
		f.Close()
		assertUsageFailure(t, code, out.String(), errOut.String(), flag, "overwrite", "stdin")
		if got, _ := os.ReadFile(path); string(got) != callLines {
			t.Fatalf("%s: the log was changed", flag)
		}
	}
}
