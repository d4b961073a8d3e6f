package sarif

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestURI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("cases use Unix paths")
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(cwd)
	for _, tc := range []struct {
		name, workDir, path, want string
	}{
		{"inside", "/repo", "/repo/logs/s1.jsonl", "logs/s1.jsonl"},
		{"escaped", "/repo", "/repo/a dir#x/l.jsonl", "a%20dir%23x/l.jsonl"},
		{"query and percent", "/repo", "/repo/a?b%c.jsonl", "a%3Fb%25c.jsonl"},
		{"non-ASCII", "/repo", "/repo/é.jsonl", "%C3%A9.jsonl"},
		{"colon in first segment", "/repo", "/repo/c:x.jsonl", "./c:x.jsonl"},
		{"dot-dot name stays inside", "/repo", "/repo/..x.jsonl", "..x.jsonl"},
		{"uncleaned inside", "/repo", "/repo/a/../b.jsonl", "b.jsonl"},
		{"parent", "/repo", "/s1.jsonl", "file:///s1.jsonl"},
		{"sibling", "/repo", "/repo2/s1.jsonl", "file:///repo2/s1.jsonl"},
		{"state dir", "/repo", "/home/user/state/sessions/s 1.jsonl", "file:///home/user/state/sessions/s%201.jsonl"},
		{"climbs via dot-dot", "/repo", "/repo/../etc/s1.jsonl", "file:///etc/s1.jsonl"},
		{"relative to cwd", "", "logs/s1.jsonl", "logs/s1.jsonl"},
		{"relative climbing out of cwd", "", "../s1.jsonl", fileURI(filepath.Join(parent, "s1.jsonl"))},
		{"absolute under cwd", "", filepath.Join(cwd, "x", "s1.jsonl"), "x/s1.jsonl"},
		{"relative work dir", "testdata", filepath.Join(cwd, "testdata", "s1.jsonl"), "s1.jsonl"},
		{"relative path, other work dir", "/repo", "s1.jsonl", fileURI(filepath.Join(cwd, "s1.jsonl"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := newLocator(Options{WorkDir: tc.workDir}).uri(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("uri(%q) from %q = %q, want %q", tc.path, tc.workDir, got, tc.want)
			}
		})
	}
}

func TestLocation(t *testing.T) {
	for _, tc := range []struct {
		name, logName, path string
		line                int
		wantURI             string // "" = no location
		wantLine            int    // 0 = no region
	}{
		{"file with line", "", "/repo/s1.jsonl", 4, "s1.jsonl", 4},
		{"file, session-wide", "", "/repo/s1.jsonl", 0, "s1.jsonl", 0},
		{"stdin", "", "", 4, "", 0},
		{"stdin with log name", "/repo/in put.jsonl", "", 4, "in%20put.jsonl", 4},
		{"log name does not override a path", "/repo/other.jsonl", "/repo/s1.jsonl", 2, "s1.jsonl", 2},
		{"negative line", "", "/repo/s1.jsonl", -1, "s1.jsonl", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" {
				t.Skip("cases use Unix paths")
			}
			loc, err := newLocator(Options{WorkDir: "/repo", LogName: tc.logName}).location(tc.path, tc.line)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantURI == "" {
				if loc != nil {
					t.Fatalf("location = %+v, want none", loc)
				}
				return
			}
			p := loc.PhysicalLocation
			if p == nil || p.ArtifactLocation == nil || p.ArtifactLocation.URI == nil || *p.ArtifactLocation.URI != tc.wantURI {
				t.Fatalf("location %+v, want uri %q", p, tc.wantURI)
			}
			switch {
			case tc.wantLine == 0 && p.Region != nil:
				t.Errorf("region %+v, want none", p.Region)
			case tc.wantLine > 0 && (p.Region == nil || p.Region.StartLine == nil || *p.Region.StartLine != tc.wantLine):
				t.Errorf("region %+v, want startLine %d", p.Region, tc.wantLine)
			}
		})
	}
}

// TestStrictURI checks the test helper itself.
func TestStrictURI(t *testing.T) {
	for u, want := range map[string]bool{
		"logs/s1.jsonl": true, "a%20dir%23x/l.jsonl": true, "file:///C:/x/y.jsonl": true, "./c:x": true,
		"": false, "a b": false, "a#b": false, "a?b": false, "%2": false, "%zz": false, `a\b`: false, "é": false,
	} {
		if got := strictURI(u); got != want {
			t.Errorf("strictURI(%q) = %v, want %v", u, got, want)
		}
	}
}
