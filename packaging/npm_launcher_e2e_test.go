//go:build e2e

package packaging_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// freshProject installs the launcher and this machine's platform package
// offline into a new project, as installed() does, for a test to change.
func freshProject(t *testing.T, in npmInstall) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`), 0o644)
	cmd := exec.Command("npm", "install", "--offline", "--ignore-scripts", in.Tarballs["mcpsnoop"], in.Tarballs["mcpsnoop-"+npmPlatform()])
	cmd.Dir, cmd.Env = dir, npmEnv(in.Cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	return dir
}

// TestNPMLauncherRefusesAnotherVersion: a platform package of another
// version than the launcher's (what a lockfile written for another release
// gives) is refused, exit 1, naming both versions and what to install, and
// the binary never runs; MCPSNOOP_BINARY still runs the binary it names.
func TestNPMLauncherRefusesAnotherVersion(t *testing.T) {
	in := installed(t)
	dir := freshProject(t, in)
	manifest := filepath.Join(dir, "node_modules", "mcpsnoop-"+npmPlatform(), "package.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var pkg map[string]any
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	pkg["version"] = "0.0.1-other"
	data, _ = json.Marshal(pkg)
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	launcher := filepath.Join(dir, "node_modules", ".bin", "mcpsnoop")
	cmd := exec.Command(launcher, "version")
	cmd.Env = npmEnv(in.Cache)
	out, err := cmd.CombinedOutput()
	want := "mcpsnoop: the package mcpsnoop-" + npmPlatform() + " holds mcpsnoop 0.0.1-other, and this launcher is mcpsnoop " + in.Version +
		"; npm installed two versions that do not go together (a lockfile from another version?). Install mcpsnoop@" + in.Version +
		" again (npm i mcpsnoop@" + in.Version + "), or set MCPSNOOP_BINARY to an mcpsnoop binary\n"
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || string(out) != want {
		t.Errorf("another version: %v\n%q\nwant\n%q", err, out, want)
	}

	bin := filepath.Join(dir, "node_modules", "mcpsnoop-"+npmPlatform(), "bin", "mcpsnoop")
	cmd = exec.Command(launcher, "version")
	cmd.Env = append(npmEnv(in.Cache), "MCPSNOOP_BINARY="+bin)
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "mcpsnoop "+in.Version) {
		t.Errorf("MCPSNOOP_BINARY past the check: %v %q", err, out)
	}
}

// TestNPXWrapOutlivesTheCache: `npx mcpsnoop wrap` run from npx's cache
// (npm exec installs the packages under <cache>/_npx/, which npm may
// clear) writes `npx -y mcpsnoop@VERSION` as the server's command, not the
// cached binary's path, and says so; a second wrap sees it as mcpsnoop's,
// and unwrap restores the entry. An installed launcher writes its
// binary's path.
func TestNPXWrapOutlivesTheCache(t *testing.T) {
	in := installed(t)
	work := t.TempDir()
	cfg := filepath.Join(work, "claude_desktop_config.json")
	orig := `{"mcpServers":{"notes":{"command":"node","args":["notes.js"]}}}`
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	npx := func(args ...string) (string, error) {
		cmd := exec.Command("npx", append([]string{"--offline", "--yes",
			"--package=" + in.Tarballs["mcpsnoop"], "--package=" + in.Tarballs["mcpsnoop-"+npmPlatform()], "--", "mcpsnoop"}, args...)...)
		cmd.Dir, cmd.Env = work, npmEnv(in.Cache, "MCPSNOOP_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := npx("wrap", "--config", cfg, "notes")
	if err != nil {
		t.Fatalf("npx mcpsnoop wrap: %v\n%s", err, out)
	}
	note := regexp.MustCompile(`note: this mcpsnoop runs from npx's cache, which npm may clear, so the entries run "npx -y mcpsnoop@` + regexp.QuoteMeta(in.Version) + `" instead of (\S+)`).FindStringSubmatch(out)
	if note == nil || !strings.Contains(filepath.ToSlash(note[1]), "/_npx/") || !strings.HasPrefix(note[1], in.Cache) {
		t.Errorf("wrap did not say it writes npx (the binary in the cache %s):\n%s", in.Cache, out)
	}
	e := serverEntry(t, cfg, "notes")
	if want := []string{"-y", "mcpsnoop@" + in.Version, "--label", "notes", "--", "node", "notes.js"}; e.Command != "npx" || !slices.Equal(e.Args, want) {
		t.Errorf("the entry runs %s %q, want npx %q", e.Command, e.Args, want)
	}
	if out, err := npx("wrap", "--config", cfg, "notes"); err != nil || !strings.Contains(out, "already wrapped") {
		t.Errorf("a second wrap: %v\n%s", err, out)
	}
	if out, err := npx("unwrap", "--config", cfg, "notes"); err != nil {
		t.Errorf("unwrap: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(cfg); string(data) != orig {
		t.Errorf("unwrap left:\n%s", data)
	}

	// An installed launcher (the project's node_modules) writes the path of
	// the mcpsnoop-shim beside its binary, which stays where it is.
	cmd := in.launcher(t.TempDir(), "wrap", "--config", cfg, "notes")
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "npx's cache") {
		t.Fatalf("the installed launcher's wrap: %v\n%s", err, out)
	}
	if got := serverEntry(t, cfg, "notes").Command; !strings.HasPrefix(got, in.Project) || filepath.Base(got) != "mcpsnoop-shim" {
		t.Errorf("the installed launcher's entry runs %q, want its mcpsnoop-shim under %s", got, in.Project)
	}
}
