//go:build e2e

// Package packaging_test holds the end-to-end tests of what a release
// ships: GoReleaser's snapshot output (archives, checksums.txt, the
// Homebrew cask) and the seven npm packages built from it, packed,
// installed offline into a temporary project and run for real under a
// real MCP client. They need that output: .ci/run builds it with
// `goreleaser release --snapshot --clean --skip=publish` and runs
//
//	MCPSNOOP_DIST=$PWD/dist go test -tags e2e ./packaging/
//
// Without MCPSNOOP_DIST, or without node and npm, they skip and say why;
// with MCPSNOOP_E2E_REQUIRE=1 (as .ci/run sets it) a missing prerequisite
// fails them instead, so that CI cannot pass on tests that never ran.
// MCPSNOOP_E2E_EVERYTHING names the entry point (dist/index.js) of an
// installed @modelcontextprotocol/server-everything, the Node server the
// capture test records; .ci/run installs it.
package packaging_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// snapshot is GoReleaser's output as the tests read it.
type snapshot struct {
	Dist    string
	Version string // without a leading v
	Commit  string // "none" when GoReleaser could not read git
}

var snap struct {
	once sync.Once
	s    snapshot
	skip string
	err  error
}

// release is the snapshot under test, or skips the test.
func release(t *testing.T) snapshot {
	t.Helper()
	snap.once.Do(func() {
		dist := os.Getenv("MCPSNOOP_DIST")
		if dist == "" {
			snap.skip = "MCPSNOOP_DIST is not set: build a snapshot with `goreleaser release --snapshot --clean --skip=publish` and point MCPSNOOP_DIST at its dist folder (.ci/run does)"
			return
		}
		if snap.s.Dist, snap.err = filepath.Abs(dist); snap.err != nil {
			return
		}
		var meta struct {
			Version string `json:"version"`
			Commit  string `json:"commit"`
		}
		data, err := os.ReadFile(filepath.Join(snap.s.Dist, "metadata.json"))
		if err == nil {
			err = json.Unmarshal(data, &meta)
		}
		if err != nil {
			snap.err = err
			return
		}
		snap.s.Version, snap.s.Commit = strings.TrimPrefix(meta.Version, "v"), meta.Commit
	})
	if snap.skip != "" {
		missing(t, "%s", snap.skip)
	}
	if snap.err != nil {
		t.Fatalf("reading the snapshot: %v", snap.err)
	}
	return snap.s
}

// npmOS and npmCPU are this machine's platform in npm's words.
func npmPlatform() string {
	os := map[string]string{"windows": "win32"}[runtime.GOOS]
	if os == "" {
		os = runtime.GOOS
	}
	cpu := map[string]string{"amd64": "x64"}[runtime.GOARCH]
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	return os + "-" + cpu
}

// needNode skips a test where node, npm or npx is missing.
func needNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, "%s is not installed: the npm packages cannot be tested here", tool)
		}
	}
}

// requireEnv set to 1 makes a missing prerequisite fail a test rather
// than skip it.
const requireEnv = "MCPSNOOP_E2E_REQUIRE"

// missing skips the test for want of a prerequisite, or fails it under
// MCPSNOOP_E2E_REQUIRE=1.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf(format+" (%s=1: a missing prerequisite fails the test)", append(args, requireEnv)...)
	}
	t.Skipf(format, args...)
}

// npmEnv keeps npm off the network and out of the user's cache and config.
func npmEnv(cache string, extra ...string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToLower(k), "npm_config_") || k == "MCPSNOOP_HOME" || k == "MCPSNOOP_BINARY" || k == "MCPSNOOP_LAUNCHER" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, append([]string{
		"npm_config_cache=" + cache,
		"npm_config_offline=true",
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"npm_config_loglevel=warn",
	}, extra...)...)
}

func withTimeout(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// repoRoot is the repository this test file is in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
