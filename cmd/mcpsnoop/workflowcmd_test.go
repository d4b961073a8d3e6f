package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Lines a peer controls that a GitHub Actions runner would obey as
// workflow commands, and that termsafe leaves alone (they are printable):
// a server's stderr line and a multi-line stray output.
const (
	forgedStderr = `{"session_id":"s1","server_label":"srv","seq":3,"ts":"2026-07-28T12:00:00.100Z","direction":"stderr","transport":"stdio","text":"::error file=a.go::pwned"}` + "\n"
	forgedStray  = `{"session_id":"s1","server_label":"srv","seq":4,"ts":"2026-07-28T12:00:00.200Z","direction":"s2c","transport":"stdio","text":"::add-mask::hunter2\n::stop-commands::forged\n  ::warning::indented"}` + "\n"
)

var guardOpen = regexp.MustCompile(`^::stop-commands::([0-9a-f]{32})$`)

// guardedBody checks that out is text between a ::stop-commands:: line
// with a random token and the line that ends it, which appears nowhere
// else, and returns the text in between.
func guardedBody(t *testing.T, name, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	m := guardOpen.FindStringSubmatch(lines[0])
	if m == nil || len(lines) < 3 || lines[len(lines)-1] != "::"+m[1]+"::" {
		t.Fatalf("%s: not guarded:\n%s", name, out)
	}
	body := strings.Join(lines[1:len(lines)-1], "\n") + "\n"
	if strings.Contains(body, m[1]) {
		t.Errorf("%s: the token appears inside the guard", name)
	}
	return body
}

// TestExportTextIsGuardedUnderGitHubActions: in a GitHub Actions step,
// export -T text on standard output (or another descriptor) goes out in
// the same ::stop-commands:: guard as check --github's report, so a
// server's "::error file=a.go::pwned" on stderr is shown and not obeyed.
// A file, the JSON formats and runs outside GitHub Actions are left bare.
func TestExportTextIsGuardedUnderGitHubActions(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "x.jsonl", []byte(callLines+forgedStderr+forgedStray))
	export := func(args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append([]string{"export"}, args...), strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("export %v: exit %d: %s", args, code, errOut.String())
		}
		return out.String(), errOut.String()
	}

	t.Setenv("GITHUB_ACTIONS", "")
	plain, _ := export("-T", "text", "x.jsonl")
	if !strings.Contains(plain, "\n::error file=a.go::pwned\n") || !strings.Contains(plain, "\n::add-mask::hunter2\n") {
		t.Fatalf("the forged lines are not in the text export:\n%s", plain)
	}
	if strings.Contains(plain, "::stop-commands::") && !strings.Contains(plain, "::stop-commands::forged") {
		t.Errorf("guarded outside GitHub Actions:\n%s", plain)
	}

	t.Setenv("GITHUB_ACTIONS", "true")
	for _, args := range [][]string{{"-T", "text"}, {"-T", " Text ", "-o", "-"}, {"-T", "text", "-o", "/dev/stdout"}} {
		out, _ := export(append(args, "x.jsonl")...)
		if body := guardedBody(t, strings.Join(args, " "), out); body != plain {
			t.Errorf("%v: the guarded text differs from the plain export:\n%s\nwant:\n%s", args, body, plain)
		}
	}
	if runtime.GOOS != "windows" {
		_, errOut := export("-T", "text", "-o", "/dev/stderr", "x.jsonl")
		guardedBody(t, "-o /dev/stderr", errOut)
	}
	// Two exports, two tokens: a log cannot know the one that ends its guard.
	a, _ := export("-T", "text", "x.jsonl")
	b, _ := export("-T", "text", "x.jsonl")
	if strings.SplitN(a, "\n", 2)[0] == strings.SplitN(b, "\n", 2)[0] {
		t.Error("two exports share a guard token")
	}
	// A regular file is no stream the runner reads; JSON quotes every line
	// break and must reach jq as the bare document.
	export("-T", "text", "-o", "out.txt", "x.jsonl")
	if got := readFileString(t, "out.txt"); got != plain {
		t.Errorf("-o out.txt under GitHub Actions:\n%s\nwant the plain export", got)
	}
	if out, _ := export("-T", "json", "x.jsonl"); !strings.HasPrefix(out, "{") {
		t.Errorf("export -T json is guarded: %.80q", out)
	}
}

// TestPruneEscapesFileNames: prune lists files whose names anyone with
// the state directory could choose; a name can neither add a line (a
// workflow command) nor drive the terminal.
func TestPruneEscapesFileNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters")
	}
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	name := "x\n::error::forged\x1b[31m\u202e.jsonl"
	p := filepath.Join(home, "sessions", name)
	writeFile(t, p, []byte("{}\n"))
	long := time.Now().Add(-40 * 24 * time.Hour)
	if err := os.Chtimes(p, long, long); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := pruneRun(t, strings.NewReader(""), "--older-than", "30d", "--dry-run")
	want := "would remove 1 session log(s), 3 B:\n  " + filepath.Join(home, "sessions") + `/x\n::error::forged\x1b[31m\u202e.jsonl` + "\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant stdout %q", code, stdout, stderr, want)
	}

	// A removal that fails names the file in its error, escaped as well.
	t.Run("removal fails", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root removes files from read-only folders")
		}
		if err := os.Chmod(filepath.Join(home, "sessions"), 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(home, "sessions"), 0o700) })
		code, _, stderr := pruneRun(t, strings.NewReader(""), "--older-than", "30d", "--yes")
		if code != 1 || !strings.Contains(stderr, `/x\n::error::forged\x1b[31m\u202e.jsonl`) ||
			strings.ContainsAny(stderr, "\x1b\u202e") || strings.Contains(stderr, "\n::") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestCompletionOffersOnlyPrintableServerNames: wrap completes server
// names from a client config, which may be a repository's; a name that
// would add a candidate, forge cobra's ":directive" line or send an
// escape sequence to the terminal is not offered.
func TestCompletionOffersOnlyPrintableServerNames(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, cfg, []byte(`{"mcpServers":{`+
		`"good":{"command":"a"},`+
		`"evil\n:0\nrm -rf ~":{"command":"b"},`+
		`"bell\u0007\u001b]0;pwned\u0007":{"command":"c"},`+
		`"tab\tdescription":{"command":"d"},`+
		`"also good":{"command":"e"}}}`))
	code, stdout, stderr := wrapRun(t, "__complete", "wrap", "--config", cfg, "")
	if code != 0 || stdout != "also good\ngood\n:4\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
