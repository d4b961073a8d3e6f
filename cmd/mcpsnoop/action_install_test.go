package main

// The action's install step (action/install.sh) against a release served
// from loopback: a GitHub stand-in (httptest) that serves release assets
// at /<owner>/<repo>/releases/download/<tag>/<file> and the repository's
// tags to git ls-remote (/<owner>/<repo>.git/info/refs, git's smart HTTP
// ref advertisement). The archives hold a real mcpsnoop built with the
// release's -ldflags. MCPSNOOP_RELEASE_BASE_URL points the script at it,
// and GITHUB_ACTION_PATH at an _actions/<owner>/<repo>/<ref> folder laid
// out as the runner lays out the action it downloaded.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/mcpsnoop/mcpsnoop/internal/testneed"
)

const (
	relVersion = "9.9.9"
	relCommit  = "1111111111111111111111111111111111111111" // what v9.9.9's binary says it was built from
	tagObject  = "2222222222222222222222222222222222222222" // v9.9.9 is an annotated tag
	otherSHA   = "3333333333333333333333333333333333333333" // a commit no release was made from
	movedSHA   = "4444444444444444444444444444444444444444" // v9.9.6 points here, its binary says relCommit
)

// releaseBuild is mcpsnoop built as a release is (-trimpath, no VCS stamp,
// version, commit and date set with -ldflags; see .goreleaser.yaml), once
// per version and commit. The compiled packages are those of the action's
// own build step (-trimpath too), so each version costs a link. Unlike a
// release, CGO is left as the machine has it: CGO_ENABLED=0 would compile
// every package again, and what these tests read of the binary (what
// `version` says) does not depend on it; the release's own archives are
// tested end to end behind the e2e tag (packaging/).
func releaseBuild(t testing.TB, version, commit string) string {
	t.Helper()
	return testbin.Build(t, ".", releaseFlags(version, commit)...)
}

// startReleaseBuild queues releaseBuild (testbin.Start).
func startReleaseBuild(version, commit string) { testbin.Start(".", releaseFlags(version, commit)...) }

func releaseFlags(version, commit string) []string {
	return []string{"-trimpath", "-buildvcs=false",
		"-ldflags=-s -w -X main.version=" + version + " -X main.commit=" + commit + " -X main.date=2026-12-01T09:00:00Z"}
}

// releaseArchives are release builds archived as GoReleaser archives them
// (mcpsnoop and README.md at the top), once per version.
var releaseArchives struct {
	mu sync.Mutex
	m  map[string]*releaseArchive
}

type releaseArchive struct {
	once sync.Once
	data []byte
	err  error
}

func releaseTarball(t testing.TB, version string) []byte {
	t.Helper()
	releaseArchives.mu.Lock()
	if releaseArchives.m == nil {
		releaseArchives.m = map[string]*releaseArchive{}
	}
	ra := releaseArchives.m[version]
	if ra == nil {
		ra = &releaseArchive{}
		releaseArchives.m[version] = ra
	}
	releaseArchives.mu.Unlock()
	bin := releaseBuild(t, version, relCommit)
	ra.once.Do(func() {
		exe, err := os.ReadFile(bin)
		if err != nil {
			ra.err = err
			return
		}
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, f := range []struct {
			name string
			mode int64
			data []byte
		}{{"README.md", 0o644, []byte("# mcpsnoop\n")}, {"mcpsnoop", 0o755, exe}} {
			tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: time.Unix(1764579600, 0)})
			tw.Write(f.data)
		}
		tw.Close()
		gz.Close()
		ra.data = buf.Bytes()
	})
	if ra.err != nil {
		t.Fatal(ra.err)
	}
	return ra.data
}

// platformAsset is the archive the install script asks for here.
func platformAsset(version string) string {
	return "mcpsnoop_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
}

// releaseServer plays GitHub for the install script.
type releaseServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte // URL path -> body
	refs  []string          // "<sha> refs/tags/<tag>", as git ls-remote prints them
	hits  []string
}

func (s *releaseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits = append(s.hits, r.URL.Path)
	if r.URL.Path == "/mcpsnoop/mcpsnoop.git/info/refs" && r.URL.Query().Get("service") == "git-upload-pack" {
		// Git's smart HTTP, protocol v0: a pkt-line per ref, capabilities
		// after the first.
		pkt := func(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }
		var b strings.Builder
		b.WriteString(pkt("# service=git-upload-pack\n") + "0000")
		for i, ref := range s.refs {
			sha, name, _ := strings.Cut(ref, " ")
			line := sha + " " + name
			if i == 0 {
				line += "\x00agent=mcpsnoop-test"
			}
			b.WriteString(pkt(line + "\n"))
		}
		b.WriteString("0000")
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write([]byte(b.String()))
		return
	}
	body, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(body)
}

func (s *releaseServer) requested(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.hits, path)
}

// newReleaseServer serves mcpsnoop/mcpsnoop's releases:
//   - v9.9.9 (an annotated tag of relCommit): the archive and a true checksums.txt;
//   - v9.9.8: a checksums.txt that lies about the archive;
//   - v9.9.5: a checksums.txt without this platform's archive;
//   - v9.9.4: a checksums.txt naming this platform's archive, which is not there;
//   - v9.9.6 (a tag of movedSHA): a binary built from relCommit;
//   - v9.9.3: v9.9.9's archive under v9.9.3's name;
//   - no v9.9.7.
func newReleaseServer(t testing.TB) *releaseServer {
	t.Helper()
	archive := releaseTarball(t, relVersion)
	sum := sha256.Sum256(archive)
	good := hex.EncodeToString(sum[:])
	moved := releaseTarball(t, "9.9.6")
	sum = sha256.Sum256(moved)
	movedSum := hex.EncodeToString(sum[:])
	dl := "/mcpsnoop/mcpsnoop/releases/download/"
	line := func(sum, version string) []byte {
		return []byte(sum + "  " + platformAsset(version) + "\n")
	}
	other := "0000000000000000000000000000000000000000000000000000000000000000  mcpsnoop_%s_windows_amd64.zip\n"
	s := &releaseServer{files: map[string][]byte{
		dl + "v9.9.9/checksums.txt":             append([]byte(fmt.Sprintf(other, "9.9.9")), line(good, "9.9.9")...),
		dl + "v9.9.9/" + platformAsset("9.9.9"): archive,
		dl + "v9.9.8/checksums.txt":             line(strings.Repeat("ab", 32), "9.9.8"),
		dl + "v9.9.8/" + platformAsset("9.9.8"): archive,
		dl + "v9.9.5/checksums.txt":             []byte(fmt.Sprintf(other, "9.9.5")),
		dl + "v9.9.4/checksums.txt":             line(good, "9.9.4"),
	}, refs: []string{
		relCommit + " refs/heads/main",
		movedSHA + " refs/tags/v9.9.6",
		tagObject + " refs/tags/v9.9.9",
		relCommit + " refs/tags/v9.9.9^{}",
	}}
	// v9.9.6's checksum holds: only the commit check can refuse it for a
	// pin of movedSHA. v9.9.3's too: only the version check can.
	s.files[dl+"v9.9.6/checksums.txt"] = line(movedSum, "9.9.6")
	s.files[dl+"v9.9.6/"+platformAsset("9.9.6")] = moved
	s.files[dl+"v9.9.3/checksums.txt"] = line(good, "9.9.3")
	s.files[dl+"v9.9.3/"+platformAsset("9.9.3")] = archive
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

// installJob is a run of the action as it would be pinned to ref
// (uses: mcpsnoop/mcpsnoop@<ref>), against srv. An empty ref runs the
// action from the repository itself (uses: ./).
type installJob struct {
	ref    string
	inputs map[string]string
	gh     string // a stand-in gh script, put first on PATH; "" for none
	token  string // github.token
}

func (j installJob) env(t testing.TB, srv *releaseServer) map[string]string {
	t.Helper()
	env := map[string]string{
		"MCPSNOOP_RELEASE_BASE_URL": srv.URL,
		"MCPSNOOP_HOME":             t.TempDir(),
		"NO_PROXY":                  "127.0.0.1", "no_proxy": "127.0.0.1",
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
	}
	if j.ref != "" {
		// The runner's layout: _actions/<owner>/<repo>/<ref> holds the
		// action's checkout.
		dir := filepath.Join(t.TempDir(), "_actions", "mcpsnoop", "mcpsnoop", j.ref)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(actionPath(t), "action"), filepath.Join(dir, "action")); err != nil {
			t.Fatal(err)
		}
		env["GITHUB_ACTION_PATH"] = dir
	}
	if j.gh != "" {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(j.gh), 0o755); err != nil {
			t.Fatal(err)
		}
		env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	}
	return env
}

// runInstall runs the install step alone.
func runInstall(t *testing.T, srv *releaseServer, j installJob) *actionResult {
	t.Helper()
	skipWithoutBash(t)
	for _, tool := range []string{"curl", "git", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			testneed.Missing(t, "%s is not installed", tool)
		}
	}
	m := loadAction(t)
	only := *m
	only.Runs.Steps = nil
	for _, st := range m.Runs.Steps {
		if st.ID == "install" {
			only.Runs.Steps = append(only.Runs.Steps, st)
		}
	}
	if len(only.Runs.Steps) != 1 {
		t.Fatal("action.yml has no step with id install")
	}
	dir := t.TempDir()
	return runAction(t, &only, actionJob{Inputs: j.inputs, Workspace: dir, Temp: dir, Env: j.env(t, srv),
		Github: map[string]string{"token": j.token}})
}

// runWholeAction runs every step, the install step for real; setupGo
// counts the setup-go steps that ran.
func runWholeAction(t testing.TB, srv *releaseServer, f *actionFixture, j installJob, env map[string]string) (res *actionResult, goSetUps int) {
	t.Helper()
	res = runAction(t, f.meta, actionJob{
		Inputs:    j.inputs,
		Workspace: f.workspace,
		Temp:      t.TempDir(),
		Env:       env,
		Uses: map[string]usesHandler{
			setupGo: func(map[string]string) (map[string]string, error) { goSetUps++; return nil, nil },
			uploadSARIF: func(with map[string]string) (map[string]string, error) {
				return nil, validateUpload(t, mustRead(t, with["sarif_file"]))
			},
		},
	})
	return res, goSetUps
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestActionInstallsTheRelease runs the whole action pinned to a release
// tag and to the commit of that release: it downloads and verifies the
// release's binary, never sets up Go, and checks with that binary.
func TestActionInstallsTheRelease(t *testing.T) {
	t.Parallel()
	t.Log("the action installs a release build served from loopback, then checks with it")
	srv := newReleaseServer(t)
	f := newActionFixture(t)
	for _, ref := range []string{"v" + relVersion, relCommit} {
		t.Run(ref, func(t *testing.T) {
			j := installJob{ref: ref, inputs: map[string]string{"session": "logs/pass/mrtr.jsonl"}}
			res, setupGo := runWholeAction(t, srv, f, j, j.env(t, srv))
			if res.Failed {
				t.Fatalf("the job failed:\n%s", res.Log)
			}
			install := res.step("install")
			bin := install.Outputs["path"]
			if install.Outputs["source"] != "release" || install.Outputs["version"] != relVersion || bin == "" {
				t.Fatalf("install outputs %v:\n%s", install.Outputs, res.Log)
			}
			if setupGo != 0 || res.step("build").Outcome != "skipped" {
				t.Errorf("Go was set up (%d) or mcpsnoop built (%s) although a release was installed", setupGo, res.step("build").Outcome)
			}
			wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "exit-code": "0", "version": relVersion})
			for _, want := range []string{
				"mcpsnoop install: verified " + platformAsset(relVersion) + " against checksums.txt (sha256 ",
				"mcpsnoop install: installed mcpsnoop " + relVersion,
				"check passed",
			} {
				if !strings.Contains(res.Log, want) {
					t.Errorf("log lacks %q:\n%s", want, res.Log)
				}
			}
			out, err := exec.Command(bin, "version").Output()
			if err != nil || !strings.HasPrefix(string(out), "mcpsnoop "+relVersion+"\n") {
				t.Errorf("the installed binary says %q (%v)", out, err)
			}
			lookedUp := srv.requested("/mcpsnoop/mcpsnoop.git/info/refs")
			if lookedUp != (ref == relCommit) {
				t.Errorf("git ls-remote asked: %v; only a commit pin needs the tags", lookedUp)
			}
			// How long from the action's first step to the check's first
			// output, the release installed from loopback (measured, not
			// asserted; BenchmarkActionInstall times it over several runs).
			t.Logf("%s: first step to the check's first output: %v", ref, res.step("check").FirstOutput.Sub(res.Steps[0].Start))
		})
	}
}

// TestActionBuildsWithoutARelease pins the action to a commit no release
// was made from: it falls back to setup-go and the build, and the built
// mcpsnoop knows the commit it was pinned to.
func TestActionBuildsWithoutARelease(t *testing.T) {
	t.Parallel()
	t.Log("the action builds mcpsnoop with its build step where no release is published")
	srv := newReleaseServer(t)
	f := newActionFixture(t)
	j := installJob{ref: otherSHA, inputs: map[string]string{"session": "logs/pass/mrtr.jsonl"}}
	res, setupGo := runWholeAction(t, srv, f, j, j.env(t, srv))
	if res.Failed {
		t.Fatalf("the job failed:\n%s", res.Log)
	}
	if setupGo != 1 || res.step("build").Outcome != "success" {
		t.Fatalf("setup-go ran %d times, build %s", setupGo, res.step("build").Outcome)
	}
	if !strings.Contains(res.Log, "::notice title=mcpsnoop::no release of mcpsnoop/mcpsnoop was made from commit "+otherSHA+"; building mcpsnoop from the action's source instead") {
		t.Errorf("no notice of the fallback:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "version": appVersionOfBuild(t, res.step("build").Outputs["path"])})
	out, _ := exec.Command(res.step("build").Outputs["path"], "version").Output()
	if !strings.Contains(string(out), "\ncommit "+otherSHA+"\n") {
		t.Errorf("the build does not name the pinned commit:\n%s", out)
	}
}

func appVersionOfBuild(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "mcpsnoop ")
	if v == "" {
		t.Fatalf("%s --version: %q", bin, out)
	}
	return v
}

// TestActionRefusesABadChecksum: an archive that does not match
// checksums.txt fails the job at the install step, and nothing is built in
// its place.
func TestActionRefusesABadChecksum(t *testing.T) {
	t.Parallel()
	srv := newReleaseServer(t)
	f := newActionFixture(t)
	j := installJob{ref: "v9.9.8", inputs: map[string]string{"session": "logs/pass/mrtr.jsonl"}}
	res, setupGo := runWholeAction(t, srv, f, j, j.env(t, srv))
	if !res.Failed || res.step("install").Outcome != "failure" {
		t.Fatalf("the job did not fail at install:\n%s", res.Log)
	}
	if setupGo != 0 || res.step("build").Outcome != "skipped" || res.step("check").Outcome != "skipped" {
		t.Errorf("after a refused install: setup-go %d, build %s, check %s", setupGo, res.step("build").Outcome, res.step("check").Outcome)
	}
	want := "::error title=mcpsnoop install::" + platformAsset("9.9.8") + " of mcpsnoop/mcpsnoop v9.9.8 has SHA-256 "
	if !strings.Contains(res.Log, want) || !strings.Contains(res.Log, "but its checksums.txt says "+strings.Repeat("ab", 32)+": refusing to install it") {
		t.Errorf("log lacks the refusal:\n%s", res.Log)
	}
	if !strings.Contains(res.Log, "##[error] step install failed: exit status 2") {
		t.Errorf("install did not exit 2:\n%s", res.Log)
	}
}

// TestActionInstallStep covers the install step's other decisions, the
// step alone.
func TestActionInstallStep(t *testing.T) {
	t.Parallel()
	t.Log("the install step's outcomes: release, build, refusal")
	srv := newReleaseServer(t)
	const refused, building = "refused", "build"
	for _, tc := range []struct {
		name string
		job  installJob
		want string // "release" (of relVersion), "release <version>", building or refused
		log  string
	}{
		{"a tag with no release", installJob{ref: "v9.9.7"}, building,
			"::notice title=mcpsnoop::mcpsnoop/mcpsnoop has no release v9.9.7 (no " + srv.URL + "/mcpsnoop/mcpsnoop/releases/download/v9.9.7/checksums.txt); building"},
		{"a release without this platform", installJob{ref: "v9.9.5"}, building,
			"::notice title=mcpsnoop::mcpsnoop/mcpsnoop v9.9.5 has no " + platformAsset("9.9.5") + " in its checksums.txt; building"},
		{"an asset listed but missing", installJob{ref: "v9.9.4"}, building,
			"::notice title=mcpsnoop::mcpsnoop/mcpsnoop v9.9.4 lists " + platformAsset("9.9.4") + ", but it is not there; building"},
		{"a branch", installJob{ref: "main"}, building, "the action's ref main is a branch or an unknown tag, not a release; building"},
		{"uses: ./", installJob{}, building, "the action was not run from a release (uses: ./ or an unknown layout); building"},
		{"version source", installJob{ref: "v" + relVersion, inputs: map[string]string{"version": "source"}}, building, `version is "source"; building`},
		{"version input from a local action", installJob{inputs: map[string]string{"version": relVersion}}, "release", "installed mcpsnoop " + relVersion},
		{"version input overrides the ref", installJob{ref: "main", inputs: map[string]string{"version": " v" + relVersion + "\n"}}, "release", "installed mcpsnoop " + relVersion},
		{"version input with no release", installJob{ref: "v" + relVersion, inputs: map[string]string{"version": "9.9.7"}}, refused,
			"::error title=mcpsnoop install::mcpsnoop/mcpsnoop has no release v9.9.7"},
		{"version input without this platform", installJob{inputs: map[string]string{"version": "9.9.5"}}, refused,
			"::error title=mcpsnoop install::mcpsnoop/mcpsnoop v9.9.5 has no " + platformAsset("9.9.5")},
		{"version input not a version", installJob{inputs: map[string]string{"version": "latest"}}, refused,
			`::error title=mcpsnoop install::version must be a release (1.2.3 or v1.2.3) or "source", got "latest"`},
		{"a commit pin whose release binary names another commit", installJob{ref: movedSHA}, refused,
			"the binary of mcpsnoop/mcpsnoop v9.9.6 was not built from the pinned commit " + movedSHA + ": refusing it"},
		{"a tag whose binary names another version", installJob{ref: "v9.9.3"}, refused,
			`the binary of mcpsnoop/mcpsnoop v9.9.3 says "mcpsnoop ` + relVersion + `", not "mcpsnoop 9.9.3": refusing it`},
		{"a tag pin takes the tag's binary whatever its commit", installJob{ref: "v9.9.6"}, "release 9.9.6", "installed mcpsnoop 9.9.6"},
		{"gh attestation verify accepts", installJob{ref: "v" + relVersion, token: "t0k",
			gh: "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args\"\nexit 0\n"}, "release",
			"gh attestation verify: " + platformAsset(relVersion) + " was built by mcpsnoop/mcpsnoop's release workflow from v" + relVersion},
		{"gh attestation verify refuses", installJob{ref: "v" + relVersion, token: "t0k", gh: "#!/bin/sh\necho 'no attestation' >&2\nexit 1\n"}, refused,
			"gh attestation verify did not accept " + platformAsset(relVersion) + " as built by mcpsnoop/mcpsnoop's release workflow from v" + relVersion},
		{"gh without a token", installJob{ref: "v" + relVersion, gh: "#!/bin/sh\nexit 1\n"}, "release",
			"the GitHub CLI (with GH_TOKEN) is not available: " + platformAsset(relVersion) + " was verified against checksums.txt only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runInstall(t, srv, tc.job)
			out := res.step("install").Outputs
			switch tc.want {
			case refused:
				if !res.Failed || !strings.Contains(res.Log, "##[error] step install failed: exit status 2") {
					t.Errorf("not refused with exit 2:\n%s", res.Log)
				}
				if out["path"] != "" {
					t.Errorf("a refused install set path %q", out["path"])
				}
			case building:
				if res.Failed || out["source"] != "build" || out["path"] != "" {
					t.Errorf("failed %v, outputs %v:\n%s", res.Failed, out, res.Log)
				}
			default:
				version := strings.TrimSpace(strings.TrimPrefix(tc.want, "release"))
				if version == "" {
					version = relVersion
				}
				if res.Failed || out["source"] != "release" || out["path"] == "" || out["version"] != version {
					t.Errorf("failed %v, outputs %v:\n%s", res.Failed, out, res.Log)
				}
			}
			if !strings.Contains(res.Log, tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, res.Log)
			}
		})
	}
}

// The stand-in gh gets the token, the archive, the repository, the release
// workflow as the signer and the tag as the source ref; for a commit pin,
// the commit as the source digest too (the binary's own word on its commit
// is no proof).
func TestActionInstallAsksGhForTheAttestation(t *testing.T) {
	t.Parallel()
	srv := newReleaseServer(t)
	for _, tc := range []struct {
		ref   string
		extra []string
	}{
		{"v" + relVersion, nil},
		{relCommit, []string{"--source-digest", relCommit}},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			argsFile := filepath.Join(t.TempDir(), "args")
			res := runInstall(t, srv, installJob{ref: tc.ref, token: "t0k",
				gh: "#!/bin/sh\nprintf '%s\\n' \"$GH_TOKEN\" \"$@\" > '" + argsFile + "'\n"})
			if res.Failed {
				t.Fatalf("install failed:\n%s", res.Log)
			}
			args := strings.Split(strings.TrimSpace(string(mustRead(t, argsFile))), "\n")
			archive := filepath.Join(filepath.Dir(res.step("install").Outputs["path"]), platformAsset(relVersion))
			want := append([]string{"t0k", "attestation", "verify", archive, "--repo", "mcpsnoop/mcpsnoop",
				"--signer-workflow", "mcpsnoop/mcpsnoop/.github/workflows/release.yml", "--source-ref", "refs/tags/v" + relVersion}, tc.extra...)
			if !slices.Equal(args, want) {
				t.Errorf("gh got\n%q\nwant\n%q", args, want)
			}
		})
	}
}

// BenchmarkActionFirstOutput times the action from its first step to the
// check's first line of output: "release" installs v9.9.9 from the
// loopback release server (pinned to the tag), "source" has no release and
// sets up nothing but builds mcpsnoop with an empty build cache, as a
// runner without setup-go's cache does (the module cache stays warm, so it
// is a lower bound). Run it with
//
//	go test ./cmd/mcpsnoop -run '^$' -bench ActionFirstOutput -benchtime 5x
func BenchmarkActionFirstOutput(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("the action stand-in runs bash steps the Linux way")
	}
	srv := newReleaseServer(b)
	meta := loadAction(b)
	workspace := b.TempDir()
	log, err := os.ReadFile(filepath.Join(actionPath(b), "fixtures", "mrtr.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(workspace, "mrtr.jsonl"), log, 0o644)
	for _, tc := range []struct{ name, ref string }{{"release", "v" + relVersion}, {"source", otherSHA}} {
		b.Run(tc.name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				env := installJob{ref: tc.ref}.env(b, srv)
				env["GOCACHE"] = b.TempDir()
				res := runAction(b, meta, actionJob{
					Inputs: map[string]string{"session": "mrtr.jsonl", "upload-sarif": "false"}, Workspace: workspace, Temp: b.TempDir(), Env: env,
					Uses: map[string]usesHandler{setupGo: func(map[string]string) (map[string]string, error) { return nil, nil }},
				})
				if res.Failed || res.step("check").FirstOutput.IsZero() {
					b.Fatalf("the action failed:\n%s", res.Log)
				}
				total += res.step("check").FirstOutput.Sub(res.Steps[0].Start)
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s-to-first-output")
		})
	}
}
