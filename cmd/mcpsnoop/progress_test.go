package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/progress"
)

// bigLog writes a log over progress.Threshold to dir: one session of tool
// calls with 10 KB results, so that the commands that read whole logs
// would draw a progress line on a terminal.
func bigLog(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	seq := 0
	line := func(dir, raw string) {
		seq++
		ts = ts.Add(time.Millisecond)
		fmt.Fprintf(f, `{"session_id":"big","server_label":"files","seq":%d,"ts":"%s","direction":"%s","transport":"stdio","raw":%s}`+"\n",
			seq, ts.Format(time.RFC3339Nano), dir, raw)
	}
	line("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	line("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	line("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	text := strings.Repeat("x", 10_000)
	for id := 1; ; id++ {
		line("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/f%d"}}}`, id, id))
		line("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, text))
		if info, err := f.Stat(); err != nil {
			t.Fatal(err)
		} else if info.Size() > progress.Threshold {
			return p
		}
	}
}

// runTo runs mcpsnoop with stderr going to a file, as a shell redirect
// does (the real terminal test of progress.IsTerminal), and returns the
// exit code, stdout and what the file got.
func runTo(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	var out strings.Builder
	code := run(args, strings.NewReader(""), &out, errFile)
	data, err := os.ReadFile(errFile.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), string(data)
}

// The commands that read whole logs draw a progress line on stderr when
// it is a terminal and the log is over 50 MB, erase it before anything
// else is written there, and write the same stdout as without it; when
// stderr is not a terminal (a file here, as in CI) they draw nothing.
func TestProgressLine(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	log := bigLog(t, dir)
	size := fmt.Sprint((mustSize(t, log) + 500_000) / 1_000_000)
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   string // what follows the erased line
		noStdout bool
		finding  bool // --run and --runs read the logs once to find the runs, with a line of its own
		once     bool // ... and --runs reads them only then
	}{
		{name: "check", args: []string{"check", log}},
		{name: "check sarif", args: []string{"check", "--format", "sarif", log}},
		{name: "export", args: []string{"export", "-T", "text", log}},
		{name: "open", args: []string{"open", log}},
		// No server recorded to run: verify stops after reading the log,
		// and its error starts a clean line.
		{name: "verify", args: []string{"verify", "--yes", log}, code: 2, stderr: "mcpsnoop verify: ", noStdout: true},
		{name: "check --run", args: []string{"check", "--run", "latest", log}, finding: true},
		{name: "check --runs", args: []string{"check", "--runs", log}, finding: true, once: true},
		{name: "export --run", args: []string{"export", "-T", "text", "--run", "latest", log}, finding: true},
		{name: "open --run", args: []string{"open", "--run", "latest", log}, finding: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, plainOut, plainErr := runTo(t, tt.args...)
			if code != tt.code || !strings.HasPrefix(plainErr, tt.stderr) || strings.Contains(plainErr, "reading") || strings.Contains(plainErr, "\r") {
				t.Fatalf("stderr not a terminal: exit %d, stderr %q", code, plainErr)
			}
			if (plainOut == "") != tt.noStdout {
				t.Fatalf("stdout %.200q", plainOut)
			}
			old := stderrIsTerminal
			stderrIsTerminal = func(io.Writer) bool { return true }
			defer func() { stderrIsTerminal = old }()
			code, out, stderr := runTo(t, tt.args...)
			if code != tt.code || out != plainOut {
				t.Errorf("on a terminal: exit %d, stdout differs: %v", code, out != plainOut)
			}
			first := "\rreading 0 MB of " + size + " MB"
			if tt.finding {
				finding := "\rfinding runs: reading 0 MB of " + size + " MB"
				if !strings.HasPrefix(stderr, finding) {
					t.Fatalf("no progress line for finding the runs: %q", stderr[:min(len(stderr), 200)])
				}
				if second := strings.Contains(stderr, first); second == tt.once {
					t.Fatalf("a line for the second read: %v, want %v: %q", second, !tt.once, stderr[:min(len(stderr), 400)])
				}
				if tt.once {
					first = finding // the line erased last
				}
			} else if !strings.HasPrefix(stderr, first) {
				t.Fatalf("no progress line: %q", stderr[:min(len(stderr), 200)])
			}
			// The line is erased: the last draw is blanked out, and what
			// follows starts at the line's beginning.
			last := strings.LastIndex(stderr, "\r")
			erase := strings.LastIndex(stderr[:last], "\r")
			if blank := stderr[erase+1 : last]; strings.TrimSpace(blank) != "" || len(blank) < len(first)-1 {
				t.Errorf("not erased: %q", stderr[max(erase-100, 0):])
			}
			if rest := stderr[last+1:]; !strings.HasPrefix(rest, tt.stderr) || rest != plainErr {
				t.Errorf("after the line: %q, want %q", rest, plainErr)
			}
		})
	}
}

func mustSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// open on a terminal reads a log over 50 MB beside the viewer (which says
// how far it has got meanwhile): once read, the log shows as when read
// first; one that cannot be read closes the viewer with its error and
// exit 2, as before.
func TestOpenBigLogInTmux(t *testing.T) {
	bin := mcpsnoopBinary(t)
	dir := t.TempDir()
	log := bigLog(t, dir)
	home := t.TempDir()
	tt := startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin)+" open "+shellQuote(log))
	tt.waitFor("mcpsnoop · files (big)", "tools/call", "read_file")
	if s := tt.screen(); strings.Contains(s, "loading") {
		t.Errorf("loaded, still loading:\n%s", s)
	}
	tt.keys("q")
	tt.waitFor("viewer exited 0")

	// A bad line after the first frame is one lost frame (the read goes
	// on); a log that starts with one is no log.
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, append([]byte("this is not json\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	tt = startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" "+shellQuote(bin)+" open "+shellQuote(bad))
	tt.waitFor("mcpsnoop open: "+bad+": line 1", "invalid JSONL envelope", "viewer exited 2")
}

// A log skipped while the runs are found (one in the sessions directory
// that is not a log) is said on a line of its own: the progress line is
// erased first and drawn again after it.
func TestProgressLineLetsNotesOut(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	bigLog(t, sessions)
	if err := os.WriteFile(filepath.Join(sessions, "bad.jsonl"), []byte(`{"session_id":`), 0o644); err != nil {
		t.Fatal(err)
	}
	old := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	defer func() { stderrIsTerminal = old }()
	code, out, stderr := runTo(t, "check", "--runs")
	if code != 0 || !regexp.MustCompile(`^RUN +KEY +LABEL +SESSIONS +REQUESTS +ERRORS\ns-big +session +files +1 `).MatchString(out) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	note := "mcpsnoop check: skipping " + filepath.Join(sessions, "bad.jsonl") + ": no envelopes found\n"
	i := strings.Index(stderr, note)
	if i < 0 {
		t.Fatalf("no note: %q", stderr)
	}
	// Before the note: the line, erased (blanks between two carriage
	// returns); after it, the line again.
	before := stderr[:i]
	erase := strings.LastIndex(before[:len(before)-1], "\r")
	if !strings.HasPrefix(before, "\rfinding runs: reading 0 MB of ") || !strings.HasSuffix(before, "\r") || erase < 0 || strings.TrimSpace(before[erase+1:len(before)-1]) != "" {
		t.Errorf("the line is not erased before the note: %q", before)
	}
	if after := stderr[i+len(note):]; !strings.HasPrefix(after, "finding runs: reading ") {
		t.Errorf("the line is not drawn again after the note: %q", after)
	}
}
