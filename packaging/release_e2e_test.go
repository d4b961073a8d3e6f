//go:build e2e

package packaging_test

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var targets = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

// archiveName is the name .goreleaser.yaml gives an archive, the one the
// action's install script and the Homebrew cask ask for.
func archiveName(version, target string) string {
	ext := ".tar.gz"
	if strings.HasPrefix(target, "windows_") {
		ext = ".zip"
	}
	return "mcpsnoop_" + version + "_" + target + ext
}

// readChecksums parses checksums.txt ("<sha256>  <file>" lines).
func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("checksums.txt: line %q is not \"<sha256>  <file>\"", sc.Text())
		}
		sums[m[2]] = m[1]
	}
	return sums
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSnapshotArchives checks the six archives against checksums.txt, what
// is inside them, and runs this machine's binary.
func TestSnapshotArchives(t *testing.T) {
	s := release(t)
	sums := readChecksums(t, filepath.Join(s.Dist, "checksums.txt"))
	var want []string
	for _, target := range targets {
		want = append(want, archiveName(s.Version, target))
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range sums {
			if !yield(k) {
				return
			}
		}
	})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("checksums.txt lists %v, want %v", got, want)
	}
	for _, target := range targets {
		name := archiveName(s.Version, target)
		path := filepath.Join(s.Dist, name)
		if sum := sha256File(t, path); sum != sums[name] {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", name, sum, sums[name])
		}
		files := archiveFiles(t, path)
		exes := []string{"mcpsnoop", "mcpsnoop-shim"}
		if strings.HasPrefix(target, "windows_") {
			exes = []string{"mcpsnoop-shim.exe", "mcpsnoop.exe"}
		}
		if want := append([]string{"README.md"}, exes...); !slices.Equal(slices.Sorted(mapKeys(files)), want) {
			t.Errorf("%s holds %v, want %v", name, slices.Sorted(mapKeys(files)), want)
		}
		for _, exe := range exes {
			if mode := files[exe]; mode&0o111 == 0 && !strings.HasPrefix(target, "windows_") {
				t.Errorf("%s: %s is not executable (%v)", name, exe, mode)
			}
		}
	}

	// This machine's binary, out of its archive, says what it is.
	target := runtime.GOOS + "_" + runtime.GOARCH
	if !slices.Contains(targets, target) {
		t.Skipf("no archive for %s", target)
	}
	bin := extractBinary(t, filepath.Join(s.Dist, archiveName(s.Version, target)), "mcpsnoop")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	checkVersionOutput(t, string(out), s)
	// The shim's own binary is of the same release: wrap asks it.
	shim := extractBinary(t, filepath.Join(s.Dist, archiveName(s.Version, target)), "mcpsnoop-shim")
	out, err = exec.Command(shim, "--version").Output()
	if err != nil || string(out) != "mcpsnoop-shim "+s.Version+"\n" {
		t.Errorf("%s --version: %q, %v; want mcpsnoop-shim %s", shim, out, err, s.Version)
	}
}

// checkVersionOutput checks `mcpsnoop version` of a release build: its
// version and, where GoReleaser could read git, its commit.
func checkVersionOutput(t *testing.T, out string, s snapshot) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || lines[0] != "mcpsnoop "+s.Version {
		t.Fatalf("version says %q, want mcpsnoop %s first", out, s.Version)
	}
	if regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(s.Commit) {
		if len(lines) != 3 || !strings.HasPrefix(lines[2], "commit "+s.Commit+" (") {
			t.Errorf("version says %q, want the commit line of %s", out, s.Commit)
		}
	} else if len(lines) != 2 {
		t.Errorf("GoReleaser knew no commit (%q), yet version says %q", s.Commit, out)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// archiveFiles lists a .tar.gz or .zip: name -> mode.
func archiveFiles(t *testing.T, path string) map[string]os.FileMode {
	t.Helper()
	files := map[string]os.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			files[f.Name] = f.Mode()
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		files[h.Name] = h.FileInfo().Mode()
	}
}

// tarFile reads the file name out of a .tar.gz stream.
func tarFile(r io.Reader, name string) ([]byte, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}

// extractBinary writes the binary called name of a .tar.gz to a temp
// folder.
func extractBinary(t *testing.T, path, name string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: no %s inside: %v", path, name, err)
		}
		if h.Name != name {
			continue
		}
		out := filepath.Join(t.TempDir(), name)
		w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, tr); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// TestHomebrewCask reads the cask GoReleaser generated for the tap: one
// url per macOS and Linux archive, each with the sha256 checksums.txt has
// for it, the release's version, and the mcpsnoop binary.
func TestHomebrewCask(t *testing.T) {
	s := release(t)
	data, err := os.ReadFile(filepath.Join(s.Dist, "homebrew", "Casks", "mcpsnoop.rb"))
	if err != nil {
		t.Fatal(err)
	}
	cask := string(data)
	sums := readChecksums(t, filepath.Join(s.Dist, "checksums.txt"))
	for _, want := range []string{
		`cask "mcpsnoop" do`,
		`version "` + s.Version + `"`,
		`binary "mcpsnoop"`,
		`binary "mcpsnoop-shim"`,
		`"#{staged_path}/mcpsnoop-shim"`, // out of quarantine too
		`homepage "https://github.com/mcpsnoop/mcpsnoop"`,
		`"com.apple.quarantine"`,
		`generate_completions_from_executable "mcpsnoop", "completion"`,
	} {
		if !strings.Contains(cask, want) {
			t.Errorf("the cask lacks %s:\n%s", want, cask)
		}
	}
	entry := regexp.MustCompile(`url "https://github\.com/mcpsnoop/mcpsnoop/releases/download/[^/"]+/([^"]+)",\s*\n\s*verified: "github.com/mcpsnoop/mcpsnoop/"\s*\n\s*sha256 "([0-9a-f]{64})"`)
	var seen []string
	for _, m := range entry.FindAllStringSubmatch(cask, -1) {
		file := strings.ReplaceAll(m[1], "#{version}", s.Version)
		seen = append(seen, file)
		if sums[file] == "" || sums[file] != m[2] {
			t.Errorf("the cask's %s has sha256 %s; checksums.txt has %q", file, m[2], sums[file])
		}
	}
	slices.Sort(seen)
	var want []string
	for _, target := range targets {
		if !strings.HasPrefix(target, "windows_") {
			want = append(want, archiveName(s.Version, target))
		}
	}
	if !slices.Equal(seen, want) {
		t.Errorf("the cask downloads %v, want %v:\n%s", seen, want, cask)
	}
}
