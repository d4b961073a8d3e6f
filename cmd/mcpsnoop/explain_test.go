package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestExplain(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string // lines stdout must hold
		stderr string
	}{
		{[]string{"--explain", "W13"}, 0, []string{
			"W13: result is missing required resultType",
			"  signal:    warn (in the default gate)",
			"  family:    Result types",
			"  revisions: 2026-07-28; any transport",
			"             2026-07-28  https://modelcontextprotocol.io/specification/2026-07-28/basic/index#resulttype",
			"  example:   session s1 line 7: result is missing required resultType",
		}, ""},
		{[]string{"--explain", "w33"}, 0, []string{
			"  revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28; any transport",
			"             2025-11-25  https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress",
			"             2026-07-28  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress",
		}, ""},
		{[]string{"--explain", "W37"}, 0, []string{
			"  signal:    warn (in the default gate); its frames count as mismatch too",
			"  revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28; streamable HTTP only",
		}, ""},
		{[]string{"--explain", "wire"}, 0, []string{
			"  signal:    wire",
			"             2024-11-05  https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2024-11-05/schema.json",
			"             2026-07-28  https://modelcontextprotocol.io/specification/2026-07-28/schema",
			`  example:   session s1 line 7: wire: tools/list result: /tools/3: missing property "name" (2025-11-25 ListToolsResult)`,
		}, ""},
		{[]string{"--explain", "mismatch"}, 0, []string{
			"mismatch: party client (a routing header that disagrees with the body); server for M1 when the recorded headers agree",
			"W36   client routing headers are invalid on a JSON-RPC batch",
			"M1    server the server answered with error -32020 (HeaderMismatch): the client's routing header disagrees with the body, or, when the recorded headers agree, the server refused wrongly",
		}, ""},
		{[]string{"--explain", "W46"}, 0, []string{"  party:     client"}, ""},
		{[]string{"--explain", "W47"}, 0, []string{"  party:     server"}, ""},
		{[]string{"--explain", "W24"}, 0, []string{"  party:     sender (whichever side sent the frame)"}, ""},
		{[]string{"--explain", "M1"}, 0, []string{"  party:     server; client when the request's routing headers disagreed with its body"}, ""},
		{[]string{"--explain", "signals"}, 0, []string{
			"incomplete   transport",
			"pending      the side that owes the answer (server for a client's request)",
			"invalid      sender",
		}, ""},
		{[]string{"--explain", "Pending"}, 0, []string{"pending: party the side that owes the answer (server for a client's request)"}, ""},
		{[]string{"--explain", "W99"}, 2, nil, `mcpsnoop check: --explain: no rule "W99"; rules are W1 to W49, M1 and wire, signals are named too (--explain all lists the rules, --explain signals the signals)` + "\n"},
		{[]string{"--explain", "W1", "run.jsonl"}, 2, nil, `mcpsnoop check: --explain reads no log, got "run.jsonl"` + "\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := checkRun(t, "", tt.args...)
		if code != tt.code || stderr != tt.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.args, code, stderr, tt.code, tt.stderr)
		}
		if tt.code != 0 && stdout != "" {
			t.Errorf("%v: stdout %q on a refusal", tt.args, stdout)
		}
		lines := strings.Split(stdout, "\n")
		for _, want := range tt.stdout {
			if !slices.Contains(lines, want) {
				t.Errorf("%v: no line %q in\n%s", tt.args, want, stdout)
			}
		}
	}
	_, all, _ := checkRun(t, "", "--explain", "all")
	if n := strings.Count(all, "\n"); n != len(checker.Rules()) || !strings.HasPrefix(all, "W1    warn     sender all revisions          missing jsonrpc=2.0\n") {
		t.Errorf("--explain all: %d lines\n%s", n, all)
	}
}

// The catalogue's placeholders carry the Go verbs the engine formats them
// with (<name %q>); no explanation shows one.
func TestExplainShowsNoGoVerbs(t *testing.T) {
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	args := []string{"all", "warn", "mismatch"}
	for _, r := range checker.Rules() {
		args = append(args, r.ID)
	}
	for _, a := range args {
		code, stdout, _ := checkRun(t, "", "--explain", a)
		if code != 0 {
			t.Fatalf("--explain %s: exit %d", a, code)
		}
		for _, line := range strings.Split(stdout, "\n") {
			if strings.Contains(line, "https://") {
				continue // a link may hold a %-escape
			}
			if v := verb.FindString(line); v != "" {
				t.Errorf("--explain %s shows %s: %q", a, v, line)
			}
		}
	}
	_, w9, _ := checkRun(t, "", "--explain", "W9")
	if !strings.Contains(w9, `W9: InputRequiredResult on "<method>", which 2026-07-28 allows only`) {
		t.Errorf("--explain W9 does not read its placeholder:\n%s", w9)
	}
}

// --wire counts without gating; --fail-on wire gates.
func TestCheckWireFlags(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	log := filepath.Join("..", "..", "fixtures", "revisions", "files-2025-03-26.jsonl")
	code, stdout, stderr := checkRun(t, "", "--wire", log)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "wire findings:\n  validated 11 frames against 2025-03-26: 3 break the schema\n") || !strings.HasSuffix(stdout, "check passed\n") {
		t.Errorf("--wire: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = checkRun(t, "", "--fail-on", "wire", log)
	if code != 1 || !strings.Contains(stdout, "check failed: wire\n") {
		t.Errorf("--fail-on wire: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = checkRun(t, "", log)
	if code != 0 || strings.Contains(stdout, "wire") {
		t.Errorf("default: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr = checkRun(t, "", "--fail-on", "wires", log)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "incomplete, schema, or wire, got \"wires\"") {
		t.Errorf("bad --fail-on: exit %d, stderr %q", code, stderr)
	}
}

// failingWriter refuses every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestExplainAndVersionWriteErrors: a report that could not be written is
// a failure (exit 2, saying so), not a success with nothing printed:
// `check --explain all > /dev/full` and `version > /dev/full` too.
func TestExplainAndVersionWriteErrors(t *testing.T) {
	outs := map[string]io.Writer{"a failing writer": failingWriter{}}
	if full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		defer full.Close()
		outs["/dev/full"] = full
	}
	for name, out := range outs {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"check", "--explain", "all"}, "mcpsnoop check: writing the explanation: "},
			{[]string{"check", "--explain", "W1"}, "mcpsnoop check: writing the explanation: "},
			{[]string{"check", "--explain", "warn"}, "mcpsnoop check: writing the explanation: "},
			{[]string{"version"}, "mcpsnoop version: writing the version: "},
		} {
			var stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), out, &stderr)
			if code != 2 || !strings.HasPrefix(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("%s: %v: exit %d, stderr %q; want 2 and %q... no space left on device", name, tc.args, code, stderr.String(), tc.want)
			}
		}
	}
}

// The wire rule's text starts with its id: --explain does not say it twice.
func TestExplainWireSaysItsIDOnce(t *testing.T) {
	_, out, _ := checkRun(t, "", "--explain", "wire")
	first, _, _ := strings.Cut(out, "\n")
	if want := "wire: <method> <request|notification|result|error response>: <pointer>: <problem> (<revision> <definition>)"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	_, out, _ = checkRun(t, "", "--explain", "W1")
	if first, _, _ := strings.Cut(out, "\n"); first != "W1: missing jsonrpc=2.0" {
		t.Errorf("W1's first line %q", first)
	}
}
