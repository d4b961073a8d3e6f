//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mockRecording = "../../serve/mock/testdata/everything.jsonl"

// runMockStdio runs `mcpsnoop mock args...` in the test's process, its
// stdio on pipes the returned transport speaks.
func runMockStdio(t *testing.T, args ...string) (*mcp.IOTransport, *lockedBuffer, chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		code := run(append([]string{"mock"}, args...), inR, outW, stderr)
		outW.Close()
		done <- code
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &mcp.IOTransport{Reader: outR, Writer: inW}, stderr, done
}

func waitExit(t *testing.T, done chan int, stderr *lockedBuffer) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(time.Minute): // a hang, not a timing
		t.Fatalf("mcpsnoop mock did not end:\n%s", stderr.String())
		return -1
	}
}

// mcpsnoop mock over stdio end to end: the Go SDK's client plays the
// recorded session, the command exits 0 under --fail-on-unmatched, and the
// mock's own log (--trace-file) checks clean, so a CI job can gate the
// client on it.
func TestMockCommandStdio(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "mock.jsonl")
	tr, stderr, done := runMockStdio(t, "--fail-on-unmatched", "--trace-file", trace, mockRecording)
	s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, mocktest.Options()).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mocktest.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if code := waitExit(t, done, stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "went unmatched") {
		t.Errorf("no summary on stderr:\n%s", stderr.String())
	}
	out := &lockedBuffer{}
	if code := run([]string{"check", trace}, strings.NewReader(""), out, out); code != 0 || !strings.Contains(out.String(), "check passed") {
		t.Errorf("check of the mock's log exited %d:\n%s", code, out.String())
	}
	b, _ := os.ReadFile(trace)
	if !strings.Contains(string(b), `"server_label":"everything"`) {
		t.Errorf("the mock's log does not carry the recording's label")
	}
}

// A request nothing recorded: the client gets -32601, and the command
// exits 1 under --fail-on-unmatched (0 without it), naming the request.
func TestMockCommandFailOnUnmatched(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		code  int
	}{
		{[]string{"--fail-on-unmatched"}, 1},
		{nil, 0},
	} {
		tr, stderr, done := runMockStdio(t, append(tc.flags, mockRecording)...)
		s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, mocktest.Options()).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.ListResourceTemplates(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "the recording holds no resources/templates/list request") {
			t.Errorf("resources/templates/list: %v", err)
		}
		s.Close()
		if code := waitExit(t, done, stderr); code != tc.code {
			t.Errorf("%v: exit %d, want %d:\n%s", tc.flags, code, tc.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "unmatched resources/templates/list") {
			t.Errorf("stderr does not name the unmatched request:\n%s", stderr.String())
		}
	}
}

func TestMockUsage(t *testing.T) {
	out := &lockedBuffer{}
	run([]string{"--help"}, strings.NewReader(""), out, out)
	if !strings.Contains(out.String(), "mock") {
		t.Errorf("--help does not list mock:\n%s", out.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mock", "--match", "fuzzy", mockRecording}, `unknown match mode "fuzzy"`},
		{[]string{"mock", "--answer-timeout", "0s", mockRecording}, "--answer-timeout must be positive"},
		{[]string{"mock", "a.jsonl", "b.jsonl"}, "one recording at a time"},
		{[]string{"mock", "-"}, "the recording cannot be standard input"},
		{[]string{"mock", "--trace-file", "x", "--log-dir", "y", mockRecording}, "give one"},
		{[]string{"mock", filepath.Join(t.TempDir(), "missing.jsonl")}, "missing.jsonl"},
		{[]string{"mock", "--session", "nope", mockRecording}, `no session "nope" in this log`},
	} {
		out := &lockedBuffer{}
		if code := run(tc.args, strings.NewReader(""), out, out); code != 2 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, out.String())
		}
	}
}
