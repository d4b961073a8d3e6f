package packaging_test

// The end-to-end tests (-tags e2e) skip when a prerequisite is missing,
// which is right on a developer's machine and wrong in CI: a CI run whose
// npm tests all skipped would pass having tested nothing. These tests,
// which run without the e2e tag, hold CI to it: .ci/run runs every e2e
// step with MCPSNOOP_E2E_REQUIRE=1, and under it each missing
// prerequisite fails its test, naming what is missing.

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestCIRequiresTheE2EPrerequisites(t *testing.T) {
	f, err := os.Open(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e2e := regexp.MustCompile(`\bgo test\b.*-tags e2e`)
	goTest := regexp.MustCompile(`\bgo test\b`)
	steps := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "echo ") || !goTest.MatchString(line) {
			continue
		}
		// Without -timeout a hung test waits for go test's default ten
		// minutes, then prints a stack nobody asked for that late.
		if !strings.Contains(line, "-timeout ") {
			t.Errorf(".ci/run runs go test without an explicit -timeout:\n%s", line)
		}
		if strings.HasSuffix(line, " ./...") && !strings.HasPrefix(line, "MCPSNOOP_E2E_REQUIRE=1 ") {
			t.Errorf(".ci/run runs the test suite without MCPSNOOP_E2E_REQUIRE=1, so a missing tool would only skip its tests:\n%s", line)
		}
		if !e2e.MatchString(line) {
			continue
		}
		steps++
		if !strings.HasPrefix(line, "MCPSNOOP_E2E_REQUIRE=1 ") {
			t.Errorf(".ci/run runs an e2e step without MCPSNOOP_E2E_REQUIRE=1, so a missing prerequisite would only skip:\n%s", line)
		}
	}
	if steps != 6 {
		t.Errorf(".ci/run has %d e2e go test steps, want 6 (./cmd/mcpsnoop/, ./capture/stdio/wintest/, ./packaging/, ./examples/conformance/, ./serve/mock/ and ./e2e/conformance/)", steps)
	}
}

// TestE2ERequireTurnsSkipsIntoFailures runs this package's e2e tests with
// each prerequisite missing in turn, with and without MCPSNOOP_E2E_REQUIRE.
func TestE2ERequireTurnsSkipsIntoFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the e2e tests")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the PATH without node is made of symbolic links")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the e2e tests with")
	}
	// A snapshot that says what it is and holds nothing else, for the
	// tests that need one before they reach node.
	dist := t.TempDir()
	os.WriteFile(filepath.Join(dist, "metadata.json"), []byte(`{"version":"v0.0.1-next","commit":"none"}`), 0o644)
	// A PATH with go and its C compiler (so that the build is the one
	// cached) and nothing else.
	noNode := t.TempDir()
	os.Symlink(goBin, filepath.Join(noNode, "go"))
	if cc, err := exec.Command(goBin, "env", "CC").Output(); err == nil {
		name := strings.TrimSpace(string(cc))
		if p, err := exec.LookPath(name); err == nil && !strings.ContainsRune(name, filepath.Separator) {
			os.Symlink(p, filepath.Join(noNode, name))
		}
	}
	for _, tc := range []struct {
		name, run string
		env       []string
		missing   string
	}{
		{"no snapshot", "TestHomebrewCask", []string{"MCPSNOOP_DIST="}, "MCPSNOOP_DIST is not set"},
		{"no node", "TestNPMVersion", []string{"MCPSNOOP_DIST=" + dist, "PATH=" + noNode}, "node is not installed"},
		{"no server-everything", "TestNPMCaptureEverything", []string{"MCPSNOOP_DIST=" + dist, "MCPSNOOP_E2E_EVERYTHING="}, "MCPSNOOP_E2E_EVERYTHING is not set"},
	} {
		for _, require := range []string{"", "1"} {
			cmd := exec.Command(goBin, "test", "-tags", "e2e", "-count=1", "-v", "-run", "^"+tc.run+"$", ".")
			cmd.Env = append(os.Environ(), append(tc.env, "MCPSNOOP_E2E_REQUIRE="+require)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			ran := out.String()
			switch {
			case !strings.Contains(ran, tc.missing):
				t.Errorf("%s, MCPSNOOP_E2E_REQUIRE=%q: %s does not say %q:\n%s", tc.name, require, tc.run, tc.missing, ran)
			case require == "" && (err != nil || !strings.Contains(ran, "--- SKIP: "+tc.run)):
				t.Errorf("%s: %s did not skip (%v):\n%s", tc.name, tc.run, err, ran)
			case require == "1" && (err == nil || !strings.Contains(ran, "--- FAIL: "+tc.run) || !strings.Contains(ran, "MCPSNOOP_E2E_REQUIRE=1: a missing prerequisite fails the test")):
				t.Errorf("%s, MCPSNOOP_E2E_REQUIRE=1: %s did not fail (%v):\n%s", tc.name, tc.run, err, ran)
			}
		}
	}
}
