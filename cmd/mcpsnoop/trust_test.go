package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpsnoop trust, --list and --revoke, and their mistakes.
func TestTrustCommand(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "elsewhere")
	cfg := filepath.Join(dir, ".mcpsnoop.toml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("otlp-endpoint = \"https://user:secret@collector.example/v1/traces?k=v\"\notlp-header = \"authorization=Bearer t\"\nlog-dir = \"" + outside + "\"\n")
	empty := t.TempDir()
	steps := []struct {
		args     []string
		edit     string // written to the config first, when set
		code     int
		out, err string // substrings: each "|"-separated part must appear
		notOut   string
	}{
		{args: []string{"trust", "--list"}, out: "no config file is trusted"},
		{args: []string{"trust", dir}, out: "trusted " + cfg + " (sha256 |it may now: stream every call it records to https://collector.example/v1/traces, with 1 header(s) of its own; write its logs to " + outside + " (log-dir)|undo this with: mcpsnoop trust --revoke " + dir, notOut: "secret"},
		{args: []string{"trust", dir}, out: cfg + " is already trusted as it is; nothing to do"},
		{args: []string{"trust", "--list"}, out: cfg + "  |  matches"},
		{args: []string{"trust", "--list"}, edit: "label = \"x\"\n", out: "changed since (not trusted until trusted again)"},
		{args: []string{"trust", dir}, out: "it sets nothing that needs trust today"},
		{args: []string{"trust", "--revoke", dir}, out: cfg + " is not trusted any more"},
		{args: []string{"trust", "--revoke", dir}, out: cfg + " was not trusted; nothing to do"},
		{args: []string{"trust", empty}, code: 1, err: "mcpsnoop trust: there is no .mcpsnoop.toml in " + filepath.Join(empty, ".mcpsnoop.toml")},
		{args: []string{"trust", dir}, edit: "colour = \"red\"\n", code: 1, err: `.mcpsnoop.toml: line 1: unknown key "colour"`},
		{args: []string{"trust", cfg}, code: 2, err: "is not a folder"},
		{args: []string{"trust", "--list", dir}, code: 2, err: "--list takes no folder"},
		{args: []string{"trust", dir, empty}, code: 2, err: "accepts at most 1 arg"},
	}
	for i, s := range steps {
		if s.edit != "" {
			write(s.edit)
		}
		var out, errOut bytes.Buffer
		code := run(s.args, strings.NewReader(""), &out, &errOut)
		if code != s.code {
			t.Fatalf("step %d %v: exit %d, want %d\n%s%s", i, s.args, code, s.code, out.String(), errOut.String())
		}
		for _, want := range strings.Split(s.out, "|") {
			if !strings.Contains(out.String(), want) {
				t.Errorf("step %d %v: stdout lacks %q:\n%s", i, s.args, want, out.String())
			}
		}
		if s.notOut != "" && strings.Contains(out.String(), s.notOut) {
			t.Errorf("step %d: stdout shows %q:\n%s", i, s.notOut, out.String())
		}
		if !strings.Contains(errOut.String(), s.err) {
			t.Errorf("step %d %v: stderr %q, want %q", i, s.args, errOut.String(), s.err)
		}
	}
}
