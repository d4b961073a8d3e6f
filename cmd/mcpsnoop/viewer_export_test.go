package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// TestViewerExporter: the viewer's exporter writes one session in each
// format through a temporary file into a folder it makes 0700, applies
// open's redaction, and refuses to overwrite the log.
func TestViewerExporter(t *testing.T) {
	log, _ := filepath.Abs("../../fixtures/store-example.jsonl")
	dir := filepath.Join(t.TempDir(), "state", "exports")
	red, err := capture.NewRedactor(capture.RedactOptions{Keys: []string{"arguments"}})
	if err != nil {
		t.Fatal(err)
	}
	exp := viewerExporter(red)
	for _, f := range []string{"json", "html", "text", "har", "otlp"} {
		dest := filepath.Join(dir, "store-example."+f)
		if err := exp(context.Background(), f, "store-example", []string{log}, dest); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		b, err := os.ReadFile(dest)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v, %d bytes", f, err, len(b))
		}
		if f == "json" && !strings.Contains(string(b), "[REDACTED]") {
			t.Errorf("the json export is not redacted")
		}
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("exports folder: %v %v", info, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 5 {
		t.Errorf("the folder holds %d files (temporary files left?)", len(ents))
	}
	if err := exp(context.Background(), "pdf", "store-example", []string{log}, filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), "unknown export format") {
		t.Errorf("pdf: %v", err)
	}
	if err := exp(context.Background(), "json", "store-example", []string{log}, log); err == nil {
		t.Error("the log itself was accepted as the output")
	}
}

// TestRootTypoAndFlagErrors: a near miss of a subcommand is refused with
// a hint instead of being run as a server; a program of that name on PATH,
// or after --, still runs. Flag errors name their subcommand.
func TestRootTypoAndFlagErrors(t *testing.T) {
	saved := lookPath
	defer func() { lookPath = saved }()
	lookPath = func(string) (string, error) { return "", os.ErrNotExist }
	var stdout, stderr bytes.Buffer
	code := run([]string{"exprot", "-T", "html"}, strings.NewReader(""), &stdout, &stderr)
	want := "mcpsnoop: unknown command \"exprot\"; did you mean export? (to run a program of that name: mcpsnoop -- exprot)\n"
	if code != 2 || stderr.String() != want {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	for _, c := range []struct{ arg, name string }{{"opne", "open"}, {"demoo", "demo"}, {"chekc", "check"}, {"node", ""}, {"python3", ""}, {"./exprot", ""}} {
		if got := misspeltCommand(newRootCmd(nil, nil, nil), c.arg); got != c.name {
			t.Errorf("misspeltCommand(%q) = %q, want %q", c.arg, got, c.name)
		}
	}
	lookPath = func(string) (string, error) { return "/usr/bin/exprot", nil }
	if got := misspeltCommand(newRootCmd(nil, nil, nil), "exprot"); got != "" {
		t.Errorf("a program on PATH is taken for a typo: %q", got)
	}

	stderr.Reset()
	code = run([]string{"export", "-T"}, strings.NewReader(""), &stdout, &stderr)
	if code != 2 || stderr.String() != "mcpsnoop export: flag needs an argument: 'T' in -T\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	stdout.Reset()
	run([]string{"--help"}, strings.NewReader(""), &stdout, &stderr)
	for _, w := range []string{"mcpsnoop                                 # the live view", "mcpsnoop open ", "mcpsnoop export -T html", "mcpsnoop demo "} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("root help lacks %q", w)
		}
	}
	stdout.Reset()
	run([]string{"demo", "--help"}, strings.NewReader(""), &stdout, &stderr)
	if s := stdout.String(); !strings.Contains(s, "six tool calls") || !strings.Contains(s, "never into\nMCPSNOOP_HOME") || !strings.Contains(s, "The directory is kept") {
		t.Errorf("demo help:\n%s", s)
	}
}
