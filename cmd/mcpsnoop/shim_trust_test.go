//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

var shimTrustTests = []struct {
	name string
	fn   func(*testing.T, shimBins)
}{
	{"config-untrusted-paths", testShimUntrustedPaths},
	{"config-fifo", testShimConfigFIFO},
}

// An untrusted .mcpsnoop.toml may not make the shim write outside its
// folder: a trace-file that leads out (an absolute path, "..", a link in
// the repository) or a log-dir elsewhere is ignored, the log goes to the
// state directory, and the file's other settings still apply. Trusted, it
// may.
func testShimUntrustedPaths(t *testing.T, bins shimBins) {
	outside := t.TempDir()
	victim := filepath.Join(outside, ".bashrc")
	if err := os.WriteFile(victim, []byte("alias ls='ls -F'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"token":"t1"}}}` + "\n"
	for _, tt := range []struct {
		name, config string
		link         string // a link "out" in the project to outside
	}{
		{"absolute trace-file", "trace-file = \"" + victim + "\"\n", ""},
		{"dot-dot trace-file", "trace-file = \"../" + filepath.Base(outside) + "/.bashrc\"\n", ""},
		{"trace-file through a link", "trace-file = \"out/.bashrc\"\n", outside},
		{"log-dir elsewhere", "log-dir = \"" + outside + "\"\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "repo")
			if tt.name == "dot-dot trace-file" {
				dir = filepath.Join(filepath.Dir(outside), "repo-"+filepath.Base(parent))
				t.Cleanup(func() { os.RemoveAll(dir) })
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.link != "" {
				if err := os.Symlink(tt.link, filepath.Join(dir, "out")); err != nil {
					t.Fatal(err)
				}
			}
			config := "label = \"repo\"\nredact-key = \"token\"\n" + tt.config
			if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			runOnce := func() string {
				p := startShim(t, bins, dir, home, "--", bins.server, "-mode", "cat")
				echoRoundTrip(t, p, line)
				p.stdin.Close()
				if code := p.wait(); code != 0 {
					t.Fatalf("exit %d\n%s", code, p.stderr.String())
				}
				return p.stderr.String()
			}
			stderr := runOnce()
			if got, _ := os.ReadFile(victim); string(got) != "alias ls='ls -F'\n" {
				t.Fatalf("an untrusted config wrote outside its folder:\n%s", got)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("files appeared outside: %v", entries)
			}
			if strings.Count(stderr, "is not trusted") != 1 || !strings.Contains(stderr, "is outside the project") {
				t.Errorf("stderr:\n%s", stderr)
			}
			// Its other settings apply: the label and the redaction.
			// The server's stderr may be logged before or after the
			// request, so the request is looked for by direction.
			frames := readFrames(t, onlyLog(t, filepath.Join(home, "sessions")))
			var request []byte
			for _, fr := range frames {
				if fr.Direction == capture.ClientToServer {
					request = fr.Raw
					break
				}
			}
			if frames[0].ServerLabel != "repo" || !strings.Contains(string(request), `"token":"[REDACTED]"`) {
				t.Errorf("label %q, request %s", frames[0].ServerLabel, request)
			}

			trust(t, bins, home, dir)
			stderr = runOnce()
			if strings.Contains(stderr, "is not trusted") {
				t.Errorf("a trusted file is reported:\n%s", stderr)
			}
			if tt.name == "log-dir elsewhere" {
				readFrames(t, onlyLog(t, outside))
				return
			}
			if got, _ := os.ReadFile(victim); !strings.Contains(string(got), `"server_label":"repo"`) {
				t.Errorf("a trusted config's trace-file was not written:\n%s", got)
			}
			if err := os.WriteFile(victim, []byte("alias ls='ls -F'\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A .mcpsnoop.toml that is a FIFO does not hang the shim: it is refused at
// once, as not a regular file.
func testShimConfigFIFO(t *testing.T, bins shimBins) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".mcpsnoop.toml"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startShim(t, bins, dir, t.TempDir(), "--", bins.server, "-mode", "cat")
	if code := p.wait(); code != 2 || !strings.Contains(p.stderr.String(), ".mcpsnoop.toml: a FIFO, not a regular file") {
		t.Errorf("exit %d\n%s", code, p.stderr.String())
	}
}
