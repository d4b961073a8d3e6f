package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

func TestSourceOf(t *testing.T) {
	vcs := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "2255a70b1c2d00000000000000000000000000aa"},
		{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct {
		name            string
		ldCommit, ldDat string
		bi              *debug.BuildInfo
		want            buildSource
		line            string // the commit line of `version`, "" for none
	}{
		{"release build", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T09:00:00Z", vcs,
			buildSource{Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T09:00:00Z"},
			"commit 0123456789abcdef0123456789abcdef01234567 (2026-12-01T09:00:00Z)"},
		{"linker commit without a date keeps the VCS date out", "0123456789abcdef0123456789abcdef01234567", "", vcs,
			buildSource{Commit: "0123456789abcdef0123456789abcdef01234567"},
			"commit 0123456789abcdef0123456789abcdef01234567"},
		{"a linker commit that is no hash is unset", "none", "0001-01-01T00:00:00Z", vcs,
			buildSource{Commit: "2255a70b1c2d00000000000000000000000000aa", Date: "2026-11-30T10:00:00Z", Modified: true},
			"commit 2255a70b1c2d00000000000000000000000000aa (2026-11-30T10:00:00Z, modified)"},
		{"clone build", "", "", vcs,
			buildSource{Commit: "2255a70b1c2d00000000000000000000000000aa", Date: "2026-11-30T10:00:00Z", Modified: true},
			"commit 2255a70b1c2d00000000000000000000000000aa (2026-11-30T10:00:00Z, modified)"},
		{"clean clone, no time", "", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			buildSource{Commit: "abc"}, "commit abc"},
		{"dirty clone, no time", "", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			buildSource{Commit: "abc", Modified: true}, "commit abc (modified)"},
		{"a time without a revision says nothing", "", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}}},
			buildSource{}, ""},
		{"no build info", "", "", nil, buildSource{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sourceOf(tc.ldCommit, tc.ldDat, tc.bi)
			if got != tc.want {
				t.Fatalf("sourceOf = %+v, want %+v", got, tc.want)
			}
			var buf bytes.Buffer
			writeVersion(&buf, "1.2.3", got)
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			want := []string{"mcpsnoop 1.2.3", runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
			if tc.line != "" {
				want = append(want, tc.line)
			}
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("version printed\n%s\nwant\n%s", buf.String(), strings.Join(want, "\n"))
			}
		})
	}
}

// TestVersionOfBuilds builds mcpsnoop twice, as a release does (version,
// commit and date through -ldflags) and as a clone does (-buildvcs), and
// reads what `mcpsnoop version` says.
func TestVersionOfBuilds(t *testing.T) {
	t.Parallel()
	t.Log("builds mcpsnoop as a release and as a clone and reads `mcpsnoop version`")
	if testing.Short() {
		t.Skip("builds mcpsnoop twice")
	}
	version := func(bin string) string {
		t.Helper()
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("%s version: %v", bin, err)
		}
		return string(out)
	}

	const sha = "0123456789abcdef0123456789abcdef01234567"
	rel := releaseBuild(t, "9.8.7", sha)
	want := "mcpsnoop 9.8.7\n" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\ncommit " + sha + " (2026-12-01T09:00:00Z)\n"
	if got := version(rel); got != want {
		t.Errorf("release build says\n%s\nwant\n%s", got, want)
	}
	if out, err := exec.Command(rel, "--version").Output(); err != nil || string(out) != "mcpsnoop 9.8.7\n" {
		t.Errorf("--version: %q %v", out, err)
	}

	// A build from this clone: the go command stamps the checkout's commit.
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): no VCS data to read", err)
	}
	if fi, err := os.Stat(filepath.Join("..", "..", ".git")); err != nil || !fi.IsDir() {
		// A linked worktree has a .git file, and the go command looks for
		// a .git folder: it stamps nothing there.
		t.Skip("a git worktree: the go command records VCS data only where .git is a folder")
	}
	clone := testbin.Build(t, ".", "-buildvcs=true")
	got := version(clone)
	m := regexp.MustCompile(`(?m)^commit ([0-9a-f]{40}) \((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)(, modified)?\)$`).FindStringSubmatch(got)
	if m == nil || m[1] != strings.TrimSpace(string(head)) {
		t.Fatalf("clone build says\n%s\nwant the commit line of %s", got, head)
	}
	// Go 1.24 and later derive a pseudo-version from the commit, so a
	// clone no longer says 0.0.0-dev.
	first, _, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(first, "mcpsnoop 0.0.0-") || first == "mcpsnoop 0.0.0-dev" || !strings.Contains(first, m[1][:12]) {
		t.Errorf("clone build's version line %q does not name its commit", first)
	}
	if os.Getenv("CI") != "" && m[3] != "" {
		t.Logf("the CI checkout is modified: %s", got)
	}
}
