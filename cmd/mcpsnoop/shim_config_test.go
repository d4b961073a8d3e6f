//go:build unix

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// .mcpsnoop.toml in the working directory sets the label, the log file and
// redaction rules; a flag replaces the file's value for its key only.
// Forwarded bytes are never redacted.
func testShimConfigFile(t *testing.T, bins shimBins) {
	dir := t.TempDir()
	config := `# project settings
label = "cfglabel"
trace-file = "trace.jsonl"
redact-key = "token"
redact-key = ["password", 'session']
redact-value = "sk-[0-9]+"   # API keys
no-trace = false
`
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"token":"t1","password":"p1","session":"s1","note":"key sk-123 and pk-456"}}}` + "\n"
	for _, tt := range []struct {
		flags []string
		label string
		want  []string
		clean []string
	}{
		{nil, "cfglabel", []string{`"token":"[REDACTED]"`, `"password":"[REDACTED]"`, `"session":"[REDACTED]"`, `key [REDACTED] and pk-456`}, []string{"t1", "p1", "s1", "sk-123"}},
		{[]string{"--label", "flaglabel", "--redact-value", "pk-[0-9]+"}, "flaglabel", []string{`"token":"[REDACTED]"`, `key sk-123 and [REDACTED]`}, []string{"t1", "pk-456"}},
	} {
		os.Remove(filepath.Join(dir, "trace.jsonl"))
		args := append(append([]string{}, tt.flags...), "--", bins.server, "-mode", "cat")
		p := startShim(t, bins, dir, t.TempDir(), args...)
		echoRoundTrip(t, p, line)
		p.stdin.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tt.flags, code, p.stderr.String())
		}
		frames := readFrames(t, filepath.Join(dir, "trace.jsonl"))
		if frames[0].ServerLabel != tt.label {
			t.Errorf("%v: label %q, want %q", tt.flags, frames[0].ServerLabel, tt.label)
		}
		c2s := frames[1]
		for _, fr := range frames {
			if fr.Direction == "c2s" {
				c2s = fr
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(string(c2s.Raw), w) {
				t.Errorf("%v: %s lacks %s", tt.flags, c2s.Raw, w)
			}
		}
		for _, secret := range tt.clean {
			if strings.Contains(string(c2s.Raw), secret) {
				t.Errorf("%v: %s still holds %s", tt.flags, c2s.Raw, secret)
			}
		}
		if !c2s.Redacted {
			t.Errorf("%v: the frame is not marked redacted", tt.flags)
		}
	}
}

func testShimBadConfig(t *testing.T, bins shimBins) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte("label = \"x\"\n\ncolour = \"red\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startShim(t, bins, dir, t.TempDir(), "--", bins.server, "-mode", "cat")
	p.stdin.Close()
	if code := p.wait(); code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, p.stderr.String())
	}
	if s := p.stderr.String(); !strings.Contains(s, `.mcpsnoop.toml: line 3: unknown key "colour"`) {
		t.Errorf("stderr: %s", s)
	}
}

// otlp-endpoint and otlp-header in .mcpsnoop.toml stream the session's
// spans to that collector with those headers; --otlp-endpoint on the
// command line replaces both (the file's headers never go to the flag's
// collector).
func testShimConfigOTLP(t *testing.T, bins shimBins) {
	type post struct{ tenant, auth string }
	collector := func() (*httptest.Server, func() []post) {
		var mu sync.Mutex
		var posts []post
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			mu.Lock()
			posts = append(posts, post{r.Header.Get("X-Tenant"), r.Header.Get("Authorization")})
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{}"))
		}))
		t.Cleanup(srv.Close)
		return srv, func() []post { mu.Lock(); defer mu.Unlock(); return append([]post(nil), posts...) }
	}
	fromFile, fileGot := collector()
	fromFlag, flagGot := collector()
	dir := t.TempDir()
	config := "otlp-endpoint = \"" + fromFile.URL + "/v1/traces\"\notlp-header = [\"x-tenant=team-a\", \"authorization=Bearer file-token\"]\n"
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// The cat server echoes each line: the request comes back as the
	// server's, and the answer to it comes back as the answer to the
	// client's, so a call ends and a span goes out.
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}` + "\n"
	answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n"
	run := func(flags ...string) string {
		args := append(append([]string{}, flags...), "--", bins.server, "-mode", "cat")
		p := startShim(t, bins, dir, t.TempDir(), args...)
		echoRoundTrip(t, p, call)
		echoRoundTrip(t, p, answer)
		p.stdin.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("%v: exit %d\n%s", flags, code, p.stderr.String())
		}
		return p.stderr.String()
	}

	stderr := run()
	if !strings.Contains(stderr, "streaming spans to "+fromFile.URL+"/v1/traces") {
		t.Errorf("the file's collector is not named:\n%s", stderr)
	}
	got := fileGot()
	if len(got) == 0 {
		t.Fatalf("the file's collector got nothing:\n%s", stderr)
	}
	for _, p := range got {
		if p.tenant != "team-a" || p.auth != "Bearer file-token" {
			t.Errorf("the file's collector got headers %+v", p)
		}
	}
	if strings.Contains(stderr, "file-token") {
		t.Errorf("a header's value reached stderr:\n%s", stderr)
	}

	before := len(fileGot())
	stderr = run("--otlp-endpoint", fromFlag.URL+"/v1/traces")
	if n := len(fileGot()); n != before {
		t.Errorf("the file's collector got %d more posts with --otlp-endpoint given", n-before)
	}
	got = flagGot()
	if len(got) == 0 {
		t.Fatalf("the flag's collector got nothing:\n%s", stderr)
	}
	for _, p := range got {
		if p.tenant != "" || p.auth != "" {
			t.Errorf("the file's headers went to the flag's collector: %+v", p)
		}
	}
}
