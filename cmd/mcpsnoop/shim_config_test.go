//go:build unix

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
// spans to that collector with those headers once the file is trusted
// (mcpsnoop trust), and not before, nor after it changed; --otlp-endpoint
// on the command line replaces both (the file's headers never go to the
// flag's collector), and an --otlp-header on the command line never goes
// to the file's collector.
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
	home := t.TempDir()
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
		p := startShim(t, bins, dir, home, args...)
		echoRoundTrip(t, p, call)
		echoRoundTrip(t, p, answer)
		p.stdin.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("%v: exit %d\n%s", flags, code, p.stderr.String())
		}
		return p.stderr.String()
	}

	// Not trusted: nothing goes to its collector, and the shim says so
	// once, with the command that trusts it.
	stderr := run()
	if n := len(fileGot()); n != 0 {
		t.Fatalf("an untrusted file's collector got %d posts:\n%s", n, stderr)
	}
	if strings.Count(stderr, "is not trusted") != 1 || !strings.Contains(stderr, "ignored: otlp-endpoint "+fromFile.URL+"/v1/traces, otlp-header") ||
		!strings.Contains(stderr, "run: mcpsnoop trust "+realPath(t, dir)+"\n") {
		t.Errorf("stderr:\n%s", stderr)
	}

	trust(t, bins, home, dir)
	stderr = run()
	if !strings.Contains(stderr, "streaming spans to "+fromFile.URL+"/v1/traces") || strings.Contains(stderr, "is not trusted") {
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

	// The user's own token on the command line never goes to the
	// collector a file named, trusted or not.
	p := startShim(t, bins, dir, home, "--otlp-header", "authorization=Bearer user-token", "--", bins.server, "-mode", "cat")
	// A call that ends, should the shim run (it must not): each line is
	// echoed back before the next goes.
	for _, line := range []string{call, answer} {
		_ = p.stdout.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.WriteString(p.stdin, line); err != nil {
			break
		}
		if _, err := p.out.ReadString('\n'); err != nil {
			break
		}
	}
	p.stdin.Close()
	if code := p.wait(); code != 2 || !strings.Contains(p.stderr.String(), "--otlp-header goes only to the collector given with --otlp-endpoint") {
		t.Errorf("exit %d\n%s", code, p.stderr.String())
	}
	for _, p := range fileGot() {
		if p.auth == "Bearer user-token" {
			t.Errorf("the command line's token went to the file's collector")
		}
	}

	// Changed since it was trusted: not trusted any more.
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte(config+"# edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before = len(fileGot())
	stderr = run()
	if n := len(fileGot()); n != before || !strings.Contains(stderr, "has changed since it was trusted") {
		t.Errorf("a changed file: %d more posts\n%s", n-before, stderr)
	}
}

// trust runs "mcpsnoop trust dir" with the state directory home.
func trust(t *testing.T, bins shimBins, home, dir string) {
	t.Helper()
	cmd := exec.Command(bins.mcpsnoop, "trust", dir)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "trusted ") {
		t.Fatalf("mcpsnoop trust: %v\n%s", err, out)
	}
}

// realPath is dir with its links resolved, as mcpsnoop names a project.
func realPath(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
