package main

// The release's configuration, read the cheap way: what GoReleaser sets
// with -ldflags exists here, the release workflow attests and publishes in
// the order immutable releases need, runs the GoReleaser .ci/run builds,
// and Dependabot watches the pins. (.ci/run's snapshot build and
// `goreleaser check` run the real thing.)

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func readYAML(t *testing.T, rel string, v any) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(actionPath(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return string(data)
}

func TestGoReleaserConfig(t *testing.T) {
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
		} `yaml:"builds"`
		Archives []struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
		SBOMs   []map[string]any `yaml:"sboms"`
		Release struct {
			Draft bool `yaml:"draft"`
		} `yaml:"release"`
		Casks []struct {
			SkipUpload any `yaml:"skip_upload"`
		} `yaml:"homebrew_casks"`
	}
	readYAML(t, ".goreleaser.yaml", &cfg)
	if cfg.Version != 2 || len(cfg.Builds) != 2 || len(cfg.Archives) != 1 || len(cfg.SBOMs) != 1 || len(cfg.Casks) != 1 {
		t.Fatalf("config %+v", cfg)
	}
	// mcpsnoop, and the shim's own binary beside it, built alike for the
	// same targets. Every -X names a variable of its package (version,
	// commit and date here; version in cmd/mcpsnoop-shim, whose tests check
	// it reports it): renaming one would make the linker skip it without a
	// word.
	_ = []*string{&version, &commit, &date}
	for i, want := range []struct {
		main string
		vars []string
	}{{"./cmd/mcpsnoop", []string{"version", "commit", "date"}}, {"./cmd/mcpsnoop-shim", []string{"version"}}} {
		b := cfg.Builds[i]
		if b.Main != want.main || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %d %+v, want %s", i, b, want.main)
		}
		if !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("%s: targets %v x %v", b.Main, b.Goos, b.Goarch)
		}
		var set []string
		for _, m := range regexp.MustCompile(`-X main\.(\w+)=`).FindAllStringSubmatch(strings.Join(b.Ldflags, " "), -1) {
			set = append(set, m[1])
		}
		if !slices.Equal(set, want.vars) {
			t.Errorf("%s: ldflags set %v, want %v", b.Main, set, want.vars)
		}
	}
	// The names action/install.sh and packaging/ ask for.
	if cfg.Archives[0].NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || cfg.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("archive %q, checksums %q", cfg.Archives[0].NameTemplate, cfg.Checksum.NameTemplate)
	}
	if !cfg.Release.Draft {
		t.Error("the release is published at once: an immutable release would refuse the attested assets that follow")
	}
	// The cask is written, not pushed: the release workflow pushes it once
	// the draft is published.
	if fmt.Sprint(cfg.Casks[0].SkipUpload) != "true" {
		t.Errorf("the cask's skip_upload is %v: GoReleaser would push it to the tap while the release is a draft", cfg.Casks[0].SkipUpload)
	}
}

func TestReleaseWorkflow(t *testing.T) {
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []actionStep      `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, ".github/workflows/release.yml", &wf)
	var tap actionStep
	if !slices.Equal(wf.On.Push.Tags, []string{"v*"}) || len(wf.Jobs) != 1 {
		t.Fatalf("on %+v, %d jobs", wf.On, len(wf.Jobs))
	}
	ci, err := os.ReadFile(filepath.Join(actionPath(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER_VERSION=(v[0-9.]+)`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run sets no GORELEASER_VERSION")
	}
	for _, job := range wf.Jobs {
		for perm, want := range map[string]string{"contents": "write", "id-token": "write", "attestations": "write"} {
			if job.Permissions[perm] != want {
				t.Errorf("permission %s: %q, want %s", perm, job.Permissions[perm], want)
			}
		}
		var order []string
		for _, st := range job.Steps {
			name, _, _ := strings.Cut(st.Uses, "@")
			switch {
			case name == "goreleaser/goreleaser-action":
				order = append(order, "goreleaser")
				if st.With["version"] != string(m[1]) || st.With["args"] != "release --clean" {
					t.Errorf("goreleaser-action with %v; .ci/run builds %s", st.With, m[1])
				}
			case name == "actions/attest-build-provenance":
				order = append(order, "attest")
				if !strings.Contains(st.With["subject-path"], "dist/*.tar.gz") || !strings.Contains(st.With["subject-path"], "dist/*.zip") {
					t.Errorf("attests %q, want every archive", st.With["subject-path"])
				}
			case strings.Contains(st.Run, "npm publish --provenance"):
				order = append(order, "npm")
			case strings.Contains(st.Run, "gh release edit") && strings.Contains(st.Run, "--draft=false"):
				order = append(order, "publish")
			case strings.Contains(st.Run, "repos/mcpsnoop/homebrew-tap/contents/Casks/mcpsnoop.rb"):
				order = append(order, "tap")
				tap = st
			}
		}
		if !slices.Equal(order, []string{"goreleaser", "attest", "npm", "publish", "tap"}) {
			t.Errorf("release steps in the order %v, want goreleaser, attest, npm, publish, tap", order)
		}
	}
	if tap.If != "${{ !contains(github.ref_name, '-') }}" || tap.Env["GH_TOKEN"] != "${{ secrets.HOMEBREW_TAP_GITHUB_TOKEN }}" || tap.Env["TAG"] != "${{ github.ref_name }}" {
		t.Errorf("the tap step runs if %q with env %v; want it skipped for a prerelease, with the tap's token", tap.If, tap.Env)
	}
	if runtime.GOOS == "windows" || tap.Run == "" {
		return
	}
	// The step's script, run as a runner runs it, against a stand-in gh
	// that records what it was asked: the generated cask goes to the
	// tap's Casks/mcpsnoop.rb, as an update of the file there when there
	// is one.
	for _, tc := range []struct {
		name     string
		existing string // the blob gh api reports for the tap's file, "" for none
		cask     string // the generated cask, "" for none
		wantErr  string
	}{
		{name: "an update", existing: "0ld5ha", cask: "cask \"mcpsnoop\" do\nend\n"},
		{name: "the first cask", cask: "cask \"mcpsnoop\" do\nend\n"},
		{name: "no cask generated", wantErr: "::error::GoReleaser wrote no dist/homebrew/Casks/mcpsnoop.rb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, bin := t.TempDir(), t.TempDir()
			calls := filepath.Join(t.TempDir(), "calls")
			if tc.cask != "" {
				os.MkdirAll(filepath.Join(work, "dist", "homebrew", "Casks"), 0o755)
				os.WriteFile(filepath.Join(work, "dist", "homebrew", "Casks", "mcpsnoop.rb"), []byte(tc.cask), 0o644)
			}
			get := "echo 'gh: Not Found (HTTP 404)' >&2; exit 1"
			if tc.existing != "" {
				get = "echo " + tc.existing
			}
			os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\nprintf '%s\\n' \"$GH_TOKEN\" \"$@\" '--' >> '"+calls+"'\n"+
				"case \" $* \" in *' --method PUT '*) echo https://github.com/mcpsnoop/homebrew-tap/commit/1 ;; *) "+get+" ;; esac\n"), 0o755)
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", tap.Run)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GH_TOKEN=tap-t0k", "TAG=v1.2.3")
			out, err := cmd.CombinedOutput()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(string(out), tc.wantErr) {
					t.Errorf("the step: %v\n%s\nwant a failure saying %q", err, out, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("the step: %v\n%s", err, out)
			}
			data, _ := os.ReadFile(calls)
			put := []string{"tap-t0k", "api", "--method", "PUT", "repos/mcpsnoop/homebrew-tap/contents/Casks/mcpsnoop.rb",
				"-f", "message=mcpsnoop v1.2.3", "-f", "content=" + base64.StdEncoding.EncodeToString([]byte(tc.cask))}
			if tc.existing != "" {
				put = append(put, "-f", "sha="+tc.existing)
			}
			put = append(put, "--jq", ".commit.html_url", "--")
			got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			want := append([]string{"tap-t0k", "api", "repos/mcpsnoop/homebrew-tap/contents/Casks/mcpsnoop.rb", "--jq", ".sha", "--"}, put...)
			if !slices.Equal(got, want) {
				t.Errorf("gh was asked\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestDependabot(t *testing.T) {
	var cfg struct {
		Version int `yaml:"version"`
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
		} `yaml:"updates"`
	}
	readYAML(t, ".github/dependabot.yml", &cfg)
	var got []string
	for _, u := range cfg.Updates {
		got = append(got, u.Ecosystem+" "+u.Directory)
	}
	if cfg.Version != 2 || !slices.Equal(got, []string{"github-actions /", "gomod /"}) {
		t.Errorf("dependabot watches %v", got)
	}
}
