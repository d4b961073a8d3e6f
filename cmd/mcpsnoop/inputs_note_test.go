package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullWriter is a standard output with no room left.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestOpenStdoutFull: open's stream that cannot be written is exit 2 (a
// documented code) with the reason on stderr, not 1.
func TestOpenStdoutFull(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	var errOut bytes.Buffer
	code := run([]string{"open", filepath.Join("..", "..", "fixtures", "mrtr.jsonl")}, strings.NewReader(""), fullWriter{}, &errOut)
	if code != 2 || errOut.String() != "mcpsnoop open: writing the stream to standard output: no space left on device\n" {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestCheckedDirectorySkipsSay: a *.jsonl in a checked directory that is
// not a regular file (a FIFO, a directory) is skipped and said on stderr,
// one line each; a symbolic link to a log is read like the log.
func TestCheckedDirectorySkipsSay(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFile(t, "logs/a.jsonl", []byte(callLines))
	writeFile(t, "elsewhere/b.log", []byte(strings.ReplaceAll(callLines, `"s1"`, `"s2"`)))
	os.Symlink("../elsewhere/b.log", "logs/b.jsonl")
	os.Mkdir("logs/c.jsonl", 0o755)
	fifo := makeFIFO(t, "pipe")
	if fifo != "" {
		if err := os.Rename(fifo, "logs/d.jsonl"); err != nil {
			t.Fatal(err)
		}
	}
	for _, command := range []string{"check", "export", "open"} {
		var out, errOut bytes.Buffer
		code := run([]string{command, "logs"}, strings.NewReader(""), &out, &errOut)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", command, code, errOut.String())
		}
		want := "mcpsnoop " + command + ": note: skipping " + filepath.Join("logs", "c.jsonl") + ": a directory, not a log file\n"
		if fifo != "" {
			want += "mcpsnoop " + command + ": note: skipping " + filepath.Join("logs", "d.jsonl") +
				": a FIFO (named pipe), not a regular file; name it on the command line to read it\n"
		}
		if errOut.String() != want {
			t.Errorf("%s: stderr\n%s\nwant\n%s", command, errOut.String(), want)
		}
		if !strings.Contains(out.String(), "s1") || !strings.Contains(out.String(), "s2") {
			t.Errorf("%s: both logs (one through a link) should be read:\n%s", command, out.String())
		}
	}
}
