package main

// The composite action (action.yml at the repository root), run offline by
// the stand-in runner of actionrunner_test.go: its real build step builds
// mcpsnoop from this checkout once, its check and gate steps run with bash,
// setup-go is skipped, and the SARIF upload is replaced by a check that the
// file exists, validates against the SARIF 2.1.0 schema (and Microsoft's
// validator with GitHub's rules when SARIF_MULTITOOL names it) and fits
// code scanning's limits. These tests stand the install step in with that
// build; action_install_test.go runs the install step itself against a
// release served from loopback.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

const (
	setupGo     = "actions/setup-go"
	uploadSARIF = "github/codeql-action/upload-sarif"
)

// The inputs and outputs the action promises (README and issue 12).
var (
	wantInputs = []string{"session", "log-dir", "fail-on", "blame", "expect-tool", "forbid-tool", "max-duration", "max-server-duration",
		"max-round-trips", "baseline", "known", "upload-sarif", "category", "fail-on-findings", "junit", "summary", "annotations",
		"working-directory", "version",
		"mode", "recording", "server-command", "replay-target", "ignore", "fail-on-slower", "verify-args"} // the last seven: mode: verify (verify_action_test.go)
	wantOutputs = []string{"outcome", "exit-code", "sarif", "junit", "errors", "warnings", "findings", "version"}
)

func skipWithoutBash(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the action stand-in runs bash steps the Linux way")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
}

func TestActionMetadata(t *testing.T) {
	t.Parallel()
	m := loadAction(t)
	if m.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", m.Runs.Using)
	}
	if m.Name == "" || m.Description == "" {
		t.Error("the action needs a name and a description")
	}
	var names []string
	for name, in := range m.Inputs {
		names = append(names, name)
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if in.Required {
			t.Errorf("input %s is required; the runner does not enforce that, so every input has a default", name)
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(wantInputs))
	if !slices.Equal(names, want) {
		t.Errorf("inputs = %v, want %v", names, want)
	}
	names = names[:0]
	for name, out := range m.Outputs {
		names = append(names, name)
		want := "${{ steps.check.outputs." + name + " }}"
		if name == "version" {
			// From whichever of install and build put mcpsnoop there.
			want = "${{ steps.install.outputs.version || steps.build.outputs.version }}"
		}
		if out.Description == "" || out.Value != want {
			t.Errorf("output %s: description %q, value %q, want %q", name, out.Description, out.Value, want)
		}
	}
	slices.Sort(names)
	if want := slices.Sorted(slices.Values(wantOutputs)); !slices.Equal(names, want) {
		t.Errorf("outputs = %v, want %v", names, want)
	}

	pinned := regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9/-]+@[0-9a-f]{40}$`)
	var uses []string
	for _, st := range m.Runs.Steps {
		if st.Uses != "" {
			uses = append(uses, strings.SplitN(st.Uses, "@", 2)[0])
			if !pinned.MatchString(st.Uses) {
				t.Errorf("step %s: uses %q is not pinned to a commit", st.label(), st.Uses)
			}
			continue
		}
		if st.Shell == "" {
			t.Errorf("step %s: a run step needs shell:", st.label())
		}
		// Script injection: inputs reach scripts through env: only.
		if strings.Contains(st.Run, "${{") {
			t.Errorf("step %s: run: interpolates an expression; pass it through env:", st.label())
		}
	}
	if !slices.Equal(uses, []string{setupGo, uploadSARIF}) {
		t.Errorf("uses steps = %v, want setup-go then upload-sarif", uses)
	}
	for _, st := range m.Runs.Steps {
		switch strings.SplitN(st.Uses, "@", 2)[0] {
		case setupGo:
			if st.With["go-version-file"] != "${{ github.action_path }}/go.mod" {
				t.Errorf("setup-go reads %q, want the action's own go.mod", st.With["go-version-file"])
			}
			// Go reaches the job's PATH only when there is no release binary.
			if st.If != "steps.install.outputs.path == ''" {
				t.Errorf("setup-go runs if %q", st.If)
			}
		case uploadSARIF:
			// check's and verify's alerts in categories of their own, unless category is set.
			if st.With["category"] != "${{ inputs.mode == 'verify' && inputs.category == 'mcpsnoop' && 'mcpsnoop-verify' || inputs.category }}" || st.With["sarif_file"] != "${{ steps.check.outputs.sarif }}" {
				t.Errorf("upload-sarif with = %v", st.With)
			}
		}
	}
	if d := m.Inputs["category"].Default; d == nil || *d != "mcpsnoop" {
		t.Errorf("category defaults to %v, want mcpsnoop", d)
	}
	if d := m.Inputs["upload-sarif"].Default; d == nil || *d != "auto" {
		t.Errorf("upload-sarif defaults to %v, want auto", d)
	}
}

// actionBinary is mcpsnoop built by the action's own build step, once.
var actionBinary struct {
	once sync.Once
	path string
	err  error
	log  string
}

func buildWithAction(t *testing.T, m *actionMeta) string {
	t.Helper()
	actionBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpsnoop-action-build-")
		if err != nil {
			actionBinary.err = err
			return
		}
		// Kept for the whole test binary; the OS temp dir is cleaned by others.
		var build []actionStep
		for _, st := range m.Runs.Steps {
			if st.ID == "build" {
				build = append(build, st)
			}
		}
		if len(build) != 1 {
			actionBinary.err = errors.New("action.yml has no step with id build")
			return
		}
		only := *m
		only.Runs.Steps = build
		res := runAction(t, &only, actionJob{Workspace: dir, Temp: dir})
		actionBinary.log = res.Log
		actionBinary.path = res.step("build").Outputs["path"]
		if res.Failed || actionBinary.path == "" {
			actionBinary.err = fmt.Errorf("the build step failed")
		}
	})
	if actionBinary.err != nil {
		t.Fatalf("%v\n%s", actionBinary.err, actionBinary.log)
	}
	return actionBinary.path
}

// actionFixture lays out a workspace holding copies of fixtures: logs/pass
// (mrtr.jsonl, clean), logs/traced and logs/untraced (the same three-server
// scenario captured twice; one call ends in an error).
type actionFixture struct {
	meta      *actionMeta
	workspace string
	binary    string
}

func newActionFixture(t *testing.T) *actionFixture {
	t.Helper()
	skipWithoutBash(t)
	m := loadAction(t)
	f := &actionFixture{meta: m, workspace: t.TempDir(), binary: buildWithAction(t, m)}
	root := actionPath(t)
	copyInto := func(dst string, srcs ...string) {
		for _, src := range srcs {
			data, err := os.ReadFile(filepath.Join(root, src))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(f.workspace, dst, filepath.Base(src)), data)
		}
	}
	copyInto("logs/pass", "fixtures/mrtr.jsonl")
	for _, run := range []string{"run-traced", "run-untraced"} {
		entries, err := os.ReadDir(filepath.Join(root, "fixtures", run))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			copyInto("logs/"+strings.TrimPrefix(run, "run-"), filepath.Join("fixtures", run, e.Name()))
		}
	}
	return f
}

// upload records what the SARIF upload stand-in was given.
type upload struct {
	file     string
	category string
	data     []byte
}

// run runs the action with these inputs; every run gets a fresh state
// directory, so baselines recorded by one never reach another.
func (f *actionFixture) run(t *testing.T, inputs map[string]string) (*actionResult, []upload) {
	t.Helper()
	var uploads []upload
	res := runAction(t, f.meta, actionJob{
		Inputs:    inputs,
		Workspace: f.workspace,
		Temp:      t.TempDir(),
		Env:       map[string]string{"MCPSNOOP_HOME": t.TempDir()},
		Replace:   map[string]map[string]string{"install": {"path": f.binary, "version": "test", "source": "release"}},
		Uses: map[string]usesHandler{
			setupGo: func(map[string]string) (map[string]string, error) { return nil, nil },
			uploadSARIF: func(with map[string]string) (map[string]string, error) {
				data, err := os.ReadFile(with["sarif_file"])
				if err != nil {
					return nil, err
				}
				uploads = append(uploads, upload{file: with["sarif_file"], category: with["category"], data: data})
				return map[string]string{"sarif-id": "test"}, validateUpload(t, data)
			},
		},
	})
	if testing.Verbose() {
		t.Logf("log:\n%s\nsummary:\n%s", res.Log, res.Summary)
	}
	return res, uploads
}

func wantOutputsEqual(t *testing.T, res *actionResult, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if res.Outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, res.Outputs[k], v)
		}
	}
}

func TestActionPassingCapture(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	res, uploads := f.run(t, map[string]string{"session": "logs/pass/mrtr.jsonl"})
	if res.Failed {
		t.Fatalf("the job failed:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "exit-code": "0", "errors": "0", "warnings": "0", "findings": "0", "version": "test"})
	for _, skipped := range []string{"Set up Go for mcpsnoop", "build"} {
		if res.step(skipped).Outcome != "skipped" {
			t.Errorf("step %s ran although install gave a binary", skipped)
		}
	}
	if len(uploads) != 1 || uploads[0].category != "mcpsnoop" || uploads[0].file != res.Outputs["sarif"] {
		t.Errorf("uploads = %+v, want the sarif output once, category mcpsnoop", uploads)
	}
	if res.step("Gate on the check").Outcome != "skipped" {
		t.Errorf("the gate ran on a passing check")
	}
	junitPath := res.Outputs["junit"]
	if !filepath.IsAbs(junitPath) || !filepath.IsAbs(res.Outputs["sarif"]) {
		t.Errorf("report outputs are not absolute: %q %q", res.Outputs["sarif"], junitPath)
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
	}
	if data, err := os.ReadFile(junitPath); err != nil || xml.Unmarshal(data, &suites) != nil {
		t.Errorf("junit output %q is not a JUnit report: %v", junitPath, err)
	}
	for _, want := range []string{"## ✅ mcpsnoop check: passed", "### ✅ session demo", "| book\\_flight | 1 | 0 | 0 | 38.2 s |"} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Summary)
		}
	}
	if !strings.Contains(res.Log, "check passed") || strings.Contains(res.Log, "::error") {
		t.Errorf("log:\n%s", res.Log)
	}
	if res.EnvFile != "" {
		t.Errorf("the action wrote to GITHUB_ENV: %q", res.EnvFile)
	}
}

func TestActionFailingCapture(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		fail   bool
	}{
		{"glob", map[string]string{"session": "logs/traced/*.jsonl"}, true},
		{"directory in a working directory", map[string]string{"session": "traced", "working-directory": "logs"}, true},
		{"fail-on-findings false", map[string]string{"session": "logs/traced/*.jsonl", "fail-on-findings": "false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, uploads := f.run(t, tc.inputs)
			if res.Failed != tc.fail {
				t.Fatalf("job failed = %v, want %v:\n%s", res.Failed, tc.fail, res.Log)
			}
			wantOutputsEqual(t, res, map[string]string{"outcome": "findings", "exit-code": "1", "errors": "1", "warnings": "0", "findings": "1"})
			// The upload comes first, so that a failing job still files its alerts.
			up, gate := res.index("upload"), res.index("Gate on the check")
			if len(uploads) != 1 || res.Steps[up].Outcome != "success" || up > gate {
				t.Fatalf("upload step %d (%d uploads), gate step %d", up, len(uploads), gate)
			}
			wantGate := "success"
			if tc.fail {
				wantGate = "failure"
			}
			if got := res.Steps[gate].Outcome; got != wantGate {
				t.Errorf("gate step %s, want %s", got, wantGate)
			}
			// Paths are the repository's, even from a working directory.
			const log = "logs/traced/github-97145-6513269e0d37.jsonl"
			if !strings.Contains(res.Log, "::error file="+log+",line=8,title=mcpsnoop/error [server]::session github-97145-6513269e0d37 line 8: tools/call search_issues") {
				t.Errorf("no error annotation on %s line 8:\n%s", log, res.Log)
			}
			if !bytes.Contains(uploads[0].data, []byte(`"uri": "`+log+`"`)) {
				t.Errorf("the SARIF does not point at %s", log)
			}
			for _, want := range []string{"## ❌ mcpsnoop check: findings", "### ❌ session github-97145-6513269e0d37", "| **1** | 0 |", "**Failed signals:** error"} {
				if !strings.Contains(res.Summary, want) {
					t.Errorf("summary lacks %q:\n%s", want, res.Summary)
				}
			}
		})
	}
}

func TestActionMissingCapture(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	for session, summary := range map[string]string{
		"logs/nope.jsonl": `Nothing was checked: session log "logs/nope\.jsonl" not found`,
		// A glob that matches nothing is the action's to explain: in its terms.
		"logs/none/*.jsonl": "Nothing was checked: the session input's entry `logs/none/*.jsonl` matches no file in `" + f.workspace + "` (working-directory).",
	} {
		t.Run(session, func(t *testing.T) {
			res, uploads := f.run(t, map[string]string{"session": session, "fail-on-findings": "false"})
			if !res.Failed || res.step("Gate on the check").Outcome != "failure" {
				t.Fatalf("the job did not fail at the gate:\n%s", res.Log)
			}
			wantOutputsEqual(t, res, map[string]string{"outcome": "error", "exit-code": "2", "sarif": "", "junit": "", "errors": "", "findings": ""})
			if len(uploads) != 0 || res.step("upload").Outcome != "skipped" {
				t.Errorf("uploaded %d files on exit 2", len(uploads))
			}
			if !strings.Contains(res.Log, session) {
				t.Errorf("log does not name the input:\n%s", res.Log)
			}
			if !strings.HasPrefix(res.Summary, "## ⚠️ mcpsnoop check: error\n\n") || !strings.Contains(res.Summary, summary) {
				t.Errorf("summary:\n%s\nwant %s", res.Summary, summary)
			}
		})
	}
}

func TestActionAssertionsAndSwitches(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	res, uploads := f.run(t, map[string]string{
		"session":             "logs/pass/mrtr.jsonl",
		"expect-tool":         "book_flight, lookup_price\nnever_called",
		"forbid-tool":         "delete_everything",
		"max-duration":        "5s",
		"max-server-duration": "10s",
		"max-round-trips":     "2",
		"upload-sarif":        "false",
		"junit":               "false",
		"summary":             "false",
		"annotations":         "1",
	})
	if !res.Failed {
		t.Fatalf("failed assertions did not fail the job:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "findings", "exit-code": "1", "junit": "", "errors": "0", "findings": "0"})
	if len(uploads) != 0 {
		t.Errorf("upload-sarif false uploaded")
	}
	if res.Summary != "" {
		t.Errorf("summary false wrote a summary:\n%s", res.Summary)
	}
	for _, want := range []string{
		`assertion failed: expected tool "never_called" was never called`,
		`assertion failed: 1 tool call exceeded the 5s budget`,
		`assertion failed: 1 tool call took more than 2 round trips`,
	} {
		if !strings.Contains(res.Log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(res.Log, "server-time budget") || strings.Contains(res.Log, "expected tool \"book_flight\"") {
		t.Errorf("an assertion that holds failed:\n%s", res.Log)
	}
	// annotations: 1 leaves room for the notice only.
	if n := strings.Count(res.Log, "::notice "); n != 1 || strings.Count(res.Log, "::error file=") != 0 {
		t.Errorf("annotations 1: %d notices, log:\n%s", n, res.Log)
	}
}

// TestActionInputMapping runs the check step against a stand-in binary
// that records its arguments, to pin how every input becomes a flag.
func TestActionInputMapping(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	argsFile := filepath.Join(t.TempDir(), "args")
	fake := filepath.Join(t.TempDir(), "mcpsnoop")
	writeFile(t, fake, []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \""+argsFile+"\"\nexit \"${FAKE_RC:-0}\"\n"))
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.workspace, "my logs", "a b.jsonl"), []byte("{}\n"))
	f.binary = fake
	res, uploads := f.run(t, map[string]string{
		"session":             "logs/traced/*.jsonl\n  my logs/a b.jsonl  \n\nlogs/pass\nserver.py-8933-e910199a\n-weird\nrun:latest",
		"fail-on":             "error,pending",
		"blame":               " server,transport ",
		"expect-tool":         "a,b\n c",
		"forbid-tool":         "*",
		"max-duration":        "5s",
		"max-server-duration": "2s",
		"max-round-trips":     "3",
		"baseline":            ".mcpsnoop/baselines",
		"known":               " .mcpsnoop/known findings.txt ",
		"junit":               "false",
		"summary":             "False",
		"annotations":         "7",
	})
	data, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatalf("the stand-in never ran: %v\n%s", err, res.Log)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(got) < 3 || got[1] != "--github" || got[2] != "--sarif" {
		t.Fatalf("args = %q", got)
	}
	sarif := got[3]
	want := []string{"check", "--github", "--sarif", sarif, "--fail-on", "error,pending", "--blame", "server,transport",
		"--github-summary=false", "--github-annotations=7",
		"--expect-tool", "a", "--expect-tool", "b", "--expect-tool", "c", "--forbid-tool", "*",
		"--max-duration", "5s", "--max-server-duration", "2s", "--max-round-trips", "3",
		"--baseline", ".mcpsnoop/baselines", "--known", ".mcpsnoop/known findings.txt", "--run", "latest", "--",
		"logs/traced/files-97144-f2a752e6b438.jsonl", "logs/traced/github-97145-6513269e0d37.jsonl", "logs/traced/search-97146-0c5ca6a3a450.jsonl",
		"my logs/a b.jsonl", "logs/pass", "server.py-8933-e910199a", "-weird"}
	if !slices.Equal(got, want) {
		t.Errorf("args:\n got %q\nwant %q", got, want)
	}
	// A fresh folder under RUNNER_TEMP per run, outside the workspace.
	if !regexp.MustCompile(`^/.*/mcpsnoop\.[A-Za-z0-9]{6}/mcpsnoop\.sarif$`).MatchString(sarif) || strings.HasPrefix(sarif, f.workspace) {
		t.Errorf("sarif path %q", sarif)
	}
	// The stand-in set no outputs: the step's fallback records its exit code.
	wantOutputsEqual(t, res, map[string]string{"exit-code": "0"})
	if res.Failed || len(uploads) != 0 {
		t.Errorf("failed %v, %d uploads (the stand-in wrote no SARIF)", res.Failed, len(uploads))
	}

	// A binary that dies without setting outputs (a crash, a flag cobra
	// refused) is an error run.
	res, uploads = runFakeRC(t, f, "3")
	wantOutputsEqual(t, res, map[string]string{"exit-code": "3", "outcome": "error"})
	if !res.Failed || len(uploads) != 0 {
		t.Errorf("exit 3: failed %v, %d uploads", res.Failed, len(uploads))
	}
}

func runFakeRC(t *testing.T, f *actionFixture, rc string) (*actionResult, []upload) {
	t.Helper()
	var uploads []upload
	res := runAction(t, f.meta, actionJob{
		Inputs:    map[string]string{"session": "logs/pass"},
		Workspace: f.workspace, Temp: t.TempDir(),
		Env:     map[string]string{"FAKE_RC": rc, "MCPSNOOP_HOME": t.TempDir()},
		Replace: map[string]map[string]string{"install": {"path": f.binary}},
		Uses: map[string]usesHandler{
			setupGo: func(map[string]string) (map[string]string, error) { return nil, nil },
			uploadSARIF: func(with map[string]string) (map[string]string, error) {
				uploads = append(uploads, upload{file: with["sarif_file"]})
				return nil, nil
			},
		},
	})
	return res, uploads
}

// TestActionRecaptureFingerprints checks that two captures of the same
// scenario (different session ids, pids and timestamps) give the same
// alerts: the same rules with the same fingerprints.
func TestActionRecaptureFingerprints(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	var prints [2][]string
	for i, dir := range []string{"logs/traced", "logs/untraced"} {
		res, uploads := f.run(t, map[string]string{"session": dir, "fail-on-findings": "false"})
		if len(uploads) != 1 {
			t.Fatalf("%s: %d uploads:\n%s", dir, len(uploads), res.Log)
		}
		var doc sarifDoc
		if err := json.Unmarshal(uploads[0].data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, r := range doc.Runs[0].Results {
			prints[i] = append(prints[i], r.RuleID+" "+r.PartialFingerprints["mcpsnoop/v1"])
		}
		slices.Sort(prints[i])
	}
	if len(prints[0]) == 0 || !slices.Equal(prints[0], prints[1]) {
		t.Errorf("fingerprints differ between captures:\n%q\n%q", prints[0], prints[1])
	}
}

// sarifDoc is what the upload checks read.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID              string            `json:"ruleId"`
			RuleIndex           int               `json:"ruleIndex"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

var sarifSchema struct {
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// validateUpload is what the upload stand-in checks: the SARIF 2.1.0
// schema, code scanning's limits and needs, and Microsoft's validator with
// GitHub's rules when SARIF_MULTITOOL is set (.ci/run sets it).
func validateUpload(t testing.TB, data []byte) error {
	t.Helper()
	sarifSchema.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		sarifSchema.sch, sarifSchema.err = c.Compile(filepath.Join(actionPath(t), "sarif", "testdata", "sarif-schema-2.1.0.json"))
	})
	if sarifSchema.err != nil {
		return sarifSchema.err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := sarifSchema.sch.Validate(inst); err != nil {
		return fmt.Errorf("SARIF schema: %v", err)
	}
	if bytes.Contains(data, []byte("null")) {
		return errors.New("the SARIF holds a null")
	}
	var doc sarifDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	if len(doc.Runs) != 1 {
		return fmt.Errorf("%d runs, want 1", len(doc.Runs))
	}
	run := doc.Runs[0]
	if len(run.Results) > 5000 {
		return fmt.Errorf("%d results; code scanning keeps 5,000", len(run.Results))
	}
	for i, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			return fmt.Errorf("result %d: ruleIndex %d does not name %s", i, r.RuleIndex, r.RuleID)
		}
		if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			return fmt.Errorf("result %d: code scanning needs exactly one location with a uri", i)
		}
		if reg := r.Locations[0].PhysicalLocation.Region; reg != nil && reg.StartLine < 1 {
			return fmt.Errorf("result %d: startLine %d", i, reg.StartLine)
		}
		if r.PartialFingerprints["mcpsnoop/v1"] == "" {
			return fmt.Errorf("result %d: no mcpsnoop/v1 fingerprint", i)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	if gz.Len() > 10<<20 {
		return fmt.Errorf("%d bytes gzipped; code scanning takes 10 MB", gz.Len())
	}
	if tool := os.Getenv("SARIF_MULTITOOL"); tool != "" {
		file := filepath.Join(t.TempDir(), "upload.sarif")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
		cmd := exec.Command(tool, "validate", "--rule-kind", "Sarif;Gh", file)
		cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s validate: %v\n%s", tool, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, ": error ") {
				return fmt.Errorf("multitool: %s", line)
			}
		}
	}
	return nil
}

// TestWorkflows lints the repository's own workflows the cheap way: every
// remote action is pinned to a commit, and every use of this action (uses:
// ./) passes only inputs it declares and reads only outputs it sets.
func TestWorkflows(t *testing.T) {
	m := loadAction(t)
	files, err := filepath.Glob(filepath.Join(actionPath(t), ".github", "workflows", "*.yml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("workflows: %v %v", files, err)
	}
	pinned := regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9/._-]+@[0-9a-f]{40}$`)
	outputRef := regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)
	selfUses := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []actionStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for job, j := range wf.Jobs {
			self := map[string]bool{}
			for _, st := range j.Steps {
				switch {
				case st.Uses == "./":
					selfUses++
					self[st.ID] = true
					for k := range st.With {
						if _, ok := m.Inputs[k]; !ok {
							t.Errorf("%s %s: input %q is not declared", filepath.Base(file), job, k)
						}
					}
				case st.Uses != "" && !pinned.MatchString(st.Uses):
					t.Errorf("%s %s: %q is not pinned to a commit", filepath.Base(file), job, st.Uses)
				}
			}
			for _, ref := range outputRef.FindAllStringSubmatch(string(data), -1) {
				if _, ok := m.Outputs[ref[2]]; self[ref[1]] && !ok {
					t.Errorf("%s %s: reads output %q, which the action does not set", filepath.Base(file), job, ref[2])
				}
			}
		}
	}
	if selfUses == 0 {
		t.Error("no workflow runs the action (uses: ./)")
	}
}

// TestUploadStandInRefuses keeps the upload stand-in honest: it must
// refuse what code scanning would.
func TestUploadStandInRefuses(t *testing.T) {
	good := `{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{"tool":{"driver":{"name":"mcpsnoop","rules":[{"id":"mcpsnoop/error"}]}},` +
		`"results":[{"ruleId":"mcpsnoop/error","ruleIndex":0,"level":"error","message":{"text":"m"},"partialFingerprints":{"mcpsnoop/v1":"0123456789abcdef"},` +
		`"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.jsonl"},"region":{"startLine":3}}}]}]}]}`
	if err := validateUpload(t, []byte(good)); err != nil && os.Getenv("SARIF_MULTITOOL") == "" {
		t.Fatalf("a minimal valid log was refused: %v", err)
	}
	for name, bad := range map[string]string{
		"not sarif":      `{}`,
		"two runs":       strings.Replace(good, `"runs":[{`, `"runs":[{"tool":{"driver":{"name":"x"}}},{`, 1),
		"wrong index":    strings.Replace(good, `"ruleIndex":0`, `"ruleIndex":1`, 1),
		"line 0":         strings.Replace(good, `"startLine":3`, `"startLine":0`, 1),
		"no fingerprint": strings.Replace(good, `"mcpsnoop/v1"`, `"other"`, 1),
		"no location":    strings.Replace(good, `,"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.jsonl"},"region":{"startLine":3}}}]`, ``, 1),
	} {
		if validateUpload(t, []byte(bad)) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
