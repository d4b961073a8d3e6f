//go:build unix

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// mcpsnoop http reads the working directory's .mcpsnoop.toml as the shim
// does: untrusted, its collector and a trace-file outside the project are
// ignored (said once on stderr) while its label applies.
func TestHTTPCommandUntrustedConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.Write([]byte("{}"))
	}))
	defer collector.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
	}))
	defer target.Close()
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	dir := t.TempDir()
	config := "label = \"repo\"\notlp-endpoint = \"" + collector.URL + "/v1/traces\"\ntrace-file = \"" + outside + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "127.0.0.1:0")
	resp, err := http.Post("http://"+h.addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, h.stderr.String())
	}
	stderr := h.stderr.String()
	if strings.Count(stderr, "mcpsnoop http: "+filepath.Join(realPath(t, dir), ".mcpsnoop.toml")+" is not trusted") != 1 || !strings.Contains(stderr, "run: mcpsnoop trust ") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("an untrusted file's collector got %d posts", n)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("an untrusted file's trace-file outside the project was written")
	}
	if frames := httpLogFrames(t, home); len(frames) == 0 || frames[0].ServerLabel != "repo" {
		t.Errorf("the log in the state directory: %+v", frames)
	}
}
