// The recipe of examples/ci, tested: the workflow a user copies runs, as
// its own steps, against real servers through the built shim; the
// repository's CI runs the same steps; and every workflow passes
// actionlint.
package ci_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testneed"
	"gopkg.in/yaml.v3"
)

type step struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

type job struct {
	RunsOn   string            `yaml:"runs-on"`
	Env      map[string]string `yaml:"env"`
	Defaults struct {
		Run struct {
			WorkingDirectory string `yaml:"working-directory"`
		} `yaml:"run"`
	} `yaml:"defaults"`
	Steps []step `yaml:"steps"`
}

func loadJob(t *testing.T, file, name string) job {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]job `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	j, ok := wf.Jobs[name]
	if !ok {
		t.Fatalf("%s has no job %q", file, name)
	}
	return j
}

func (j job) step(t *testing.T, name string) step {
	t.Helper()
	for _, s := range j.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return step{}
}

// The steps the test runs as the workflow has them.
const (
	stepWrap     = "Route the MCP servers through mcpsnoop"
	stepAgent    = "Run the agent"
	stepSessions = "List the sessions"
)

// TestWorkflowMatchesCI keeps the repository's own run of the recipe (the
// example job of .github/workflows/action.yml) step for step the same as
// the file users copy. It may differ only where it must: Go from go.mod,
// mcpsnoop built from this checkout, the action used as uses: ./ without a
// SARIF upload, and steps of its own after the recipe's.
func TestWorkflowMatchesCI(t *testing.T) {
	example := loadJob(t, "workflow.yml", "agent")
	ci := loadJob(t, filepath.Join("..", "..", ".github", "workflows", "action.yml"), "example")
	if ci.RunsOn != example.RunsOn || ci.Defaults != example.Defaults || fmt.Sprint(ci.Env) != fmt.Sprint(example.Env) {
		t.Errorf("runs-on %q / %+v / env %v, the example has %q / %+v / env %v", ci.RunsOn, ci.Defaults, ci.Env, example.RunsOn, example.Defaults, example.Env)
	}
	if len(ci.Steps) < len(example.Steps) {
		t.Fatalf("the CI job has %d steps, the example %d", len(ci.Steps), len(example.Steps))
	}
	for i, want := range example.Steps {
		got := ci.Steps[i]
		switch {
		case strings.HasPrefix(want.Uses, "actions/setup-go@"):
			want.With, got.With = nil, nil
		case want.Name == "Install mcpsnoop":
			want.Run, got.Run = "", ""
		case strings.HasPrefix(want.Uses, "mcpsnoop/mcpsnoop@"):
			if got.Uses != "./" || got.With["upload-sarif"] != "false" {
				t.Errorf("step %q: uses %q with %v, want ./ and upload-sarif false", want.Name, got.Uses, got.With)
			}
			want.Uses, got.Uses = "", ""
			delete(got.With, "upload-sarif")
		}
		if !equalStep(want, got) {
			t.Errorf("step %d differs:\nexample %+v\nCI      %+v", i, want, got)
		}
	}
}

func equalStep(a, b step) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// logFolderVar is the one variable the recipe keeps its log folder in.
const logFolderVar = "MCPSNOOP_LOG_DIR"

// TestWorkflowOneLogFolder: the recipe names its log folder once, in the
// job's environment, and every step that writes, lists, uploads or checks
// the logs takes it from there; no step spells a path of its own.
func TestWorkflowOneLogFolder(t *testing.T) {
	example := loadJob(t, "workflow.yml", "agent")
	folder := example.Env[logFolderVar]
	if !strings.HasPrefix(folder, "${{ github.workspace }}/") {
		t.Fatalf("env %s = %q, want a folder in the checkout (${{ github.workspace }}/...)", logFolderVar, folder)
	}
	rel := strings.TrimPrefix(folder, "${{ github.workspace }}/")
	for _, tc := range []struct {
		step, got, want string
	}{
		{stepWrap, example.step(t, stepWrap).Run, `--log-dir "$` + logFolderVar + `"`},
		{stepSessions, example.step(t, stepSessions).Run, `"$` + logFolderVar + `"`},
		{"Keep the session logs", example.step(t, "Keep the session logs").With["path"], "${{ env." + logFolderVar + " }}"},
		{"Check the sessions", example.step(t, "Check the sessions").With["log-dir"], "${{ env." + logFolderVar + " }}"},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("step %q: %q does not take the folder from %s (%s)", tc.step, tc.got, logFolderVar, tc.want)
		}
	}
	for _, s := range example.Steps {
		spelled := s.Run
		for _, v := range s.With {
			spelled += "\n" + v
		}
		if strings.Contains(spelled, "artifacts/") || strings.Contains(spelled, rel) {
			t.Errorf("step %q spells a log path of its own: %q", s.Name, spelled)
		}
	}
	if _, ok := example.step(t, "Check the sessions").With["working-directory"]; ok {
		t.Errorf("the check step needs no working-directory: its log-dir is absolute")
	}
}

// pinned is owner/repo[/path]@<40 hex> # vX.Y.Z[...]: an action pinned by
// commit, its release in a trailing comment.
var pinned = regexp.MustCompile(`^\s*(?:-\s+)?uses:\s+([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s+(\S.*)$`)

// TestWorkflowPins: every action the recipe uses is pinned by a full
// commit SHA with its release tag in a trailing comment, the same pin (and
// tag) the repository's own workflows use for it. mcpsnoop itself has no
// release yet: its action and its go install name one commit, the same.
func TestWorkflowPins(t *testing.T) {
	ours := map[string]string{} // action@sha -> tag, in .github/workflows
	files, _ := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "*.yml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := pinned.FindStringSubmatch(line); m != nil {
				ours[m[1]+"@"+m[2]] = m[3]
			}
		}
	}
	data, err := os.ReadFile("workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	var snoopPin string
	uses := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !regexp.MustCompile(`^\s*(-\s+)?uses:`).MatchString(line) {
			continue
		}
		uses++
		m := pinned.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not pinned by commit with its release in a comment: %s", strings.TrimSpace(line))
			continue
		}
		if m[1] == "mcpsnoop/mcpsnoop" {
			snoopPin = m[2]
			continue
		}
		if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(m[3]) {
			t.Errorf("%s: the comment %q is not a release tag (vX.Y.Z)", m[1], m[3])
		}
		if tag, ok := ours[m[1]+"@"+m[2]]; !ok || tag != m[3] {
			t.Errorf("%s@%s # %s: the repository's workflows pin it otherwise (%q)", m[1], m[2], m[3], tag)
		}
	}
	if uses < 4 || snoopPin == "" {
		t.Fatalf("%d uses, mcpsnoop pinned at %q", uses, snoopPin)
	}
	install := loadJob(t, "workflow.yml", "agent").step(t, "Install mcpsnoop").Run
	if !regexp.MustCompile(`github\.com/mcpsnoop/mcpsnoop/cmd/\.\.\.@` + snoopPin + `(\s|$)`).MatchString(install) {
		t.Errorf("go install %q does not install the commit the action is pinned to (%s)", install, snoopPin)
	}
}

// TestWorkflowsPassActionlint runs actionlint over the example and the
// repository's workflows when it is installed (.ci/run installs it).
func TestWorkflowsPassActionlint(t *testing.T) {
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		gobin := filepath.Join(goEnv(t, "GOPATH"), "bin", "actionlint")
		if _, serr := os.Stat(gobin); serr != nil {
			testneed.Missing(t, "actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
		}
		bin = gobin
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "*.yml"))
	out, err := exec.Command(bin, append([]string{"workflow.yml"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestRecipe runs the recipe for real: the example agent (a Go SDK client
// that gives its servers none of its environment beyond PATH, HOME and the
// like) against the example servers, wrapped by the workflow's own wrap
// command and so started through the real mcpsnoop shim. Each server's
// session log must land in artifacts/mcp/, none in the state directory
// that MCPSNOOP_HOME names (the agent does not pass it on), and the logs
// must check clean and form one run.
func TestRecipe(t *testing.T) {
	t.Log("the CI recipe's steps under bash: the agent's servers through the shim, then check")
	if runtime.GOOS == "windows" {
		t.Skip("the recipe's steps are bash, for ubuntu runners")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	tmp := t.TempDir()
	tools := filepath.Join(tmp, "tools")
	mcpsnoop := filepath.Join(tools, "mcpsnoop")
	if other := os.Getenv("MCPSNOOP_TEST_BINARY"); other != "" { // another build of mcpsnoop to try the recipe with
		data, err := os.ReadFile(other)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, mcpsnoop, data)
		if err := os.Chmod(mcpsnoop, 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		// Both binaries, as the workflow's go install .../cmd/... puts
		// them: wrap writes mcpsnoop-shim into .mcp.json.
		goBuild(t, tools+string(filepath.Separator), "../../cmd/mcpsnoop", "../../cmd/mcpsnoop-shim")
	}
	// The checkout, with the recipe's project folder where the workflow
	// has it: its log folder is ${{ github.workspace }}/examples/ci/...
	workspace := filepath.Join(tmp, "workspace")
	example := loadJob(t, "workflow.yml", "agent")
	project := filepath.Join(workspace, filepath.FromSlash(example.Defaults.Run.WorkingDirectory))
	for _, f := range []string{".mcp.json", "plan.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(project, f), data)
	}
	// The workflow's build step, from the module root: go build -o bin/ ./agent ./server.
	goBuild(t, filepath.Join(project, "bin")+string(filepath.Separator), "./agent", "./server")

	decoy := filepath.Join(tmp, "state")
	home := filepath.Join(tmp, "home")
	logDir := strings.ReplaceAll(example.Env[logFolderVar], "${{ github.workspace }}", workspace)
	env := append(os.Environ(), "MCPSNOOP_HOME="+decoy, "HOME="+home, "XDG_STATE_HOME=", logFolderVar+"="+logDir,
		"PATH="+filepath.Dir(mcpsnoop)+string(os.PathListSeparator)+os.Getenv("PATH"))
	runStep := func(name string) string {
		t.Helper()
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", example.step(t, name).Run)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("step %q: %v\n%s", name, err, out)
		}
		return string(out)
	}
	before, _ := os.ReadFile(filepath.Join(project, ".mcp.json"))
	if out := runStep(stepWrap); !strings.Contains(out, `wrapped "math"`) || !strings.Contains(out, `wrapped "notes"`) {
		t.Fatalf("wrap:\n%s", out)
	}
	if wrapped, _ := os.ReadFile(filepath.Join(project, ".mcp.json")); os.Getenv("MCPSNOOP_TEST_BINARY") == "" && strings.Count(string(wrapped), strconv.Quote(filepath.Join(tools, "mcpsnoop-shim"))) != 2 {
		t.Errorf("the wrapped servers do not both run %s:\n%s", filepath.Join(tools, "mcpsnoop-shim"), wrapped)
	}
	out := runStep(stepAgent)
	for _, want := range []string{"notes/list_notes: ok: check the MCP traffic in CI | keep the logs as an artifact", "math/divide: ok: 42"} {
		if !strings.Contains(out, want) {
			t.Errorf("the agent did not say %q:\n%s", want, out)
		}
	}

	if logDir != filepath.Join(project, "artifacts", "mcp") {
		t.Errorf("the log folder is %s, want artifacts/mcp in the project", logDir)
	}
	logs, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	if len(logs) != 2 {
		t.Fatalf("artifacts/mcp holds %v, want one log per server", logs)
	}
	if stray, _ := filepath.Glob(filepath.Join(decoy, "sessions", "*")); len(stray) > 0 {
		t.Errorf("logs went to the state directory: %v", stray)
	}
	if listing := runStep(stepSessions); strings.Count(listing, "\n") != 3 {
		t.Errorf("sessions:\n%s", listing)
	}

	list := exec.Command(mcpsnoop, "sessions", "--json", logDir)
	list.Env = env
	data, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	var sessions []struct {
		Label  string   `json:"server_label"`
		Calls  int      `json:"calls"`
		Errors int      `json:"errors"`
		RunIDs []string `json:"run_ids"`
	}
	if err := json.Unmarshal(data, &sessions); err != nil || len(sessions) != 2 {
		t.Fatalf("sessions --json: %v\n%s", err, data)
	}
	slices.SortFunc(sessions, func(a, b struct {
		Label  string   `json:"server_label"`
		Calls  int      `json:"calls"`
		Errors int      `json:"errors"`
		RunIDs []string `json:"run_ids"`
	}) int {
		return strings.Compare(a.Label, b.Label)
	})
	if sessions[0].Label != "math" || sessions[1].Label != "notes" || sessions[0].Calls < 4 || sessions[1].Calls < 5 ||
		sessions[0].Errors != 0 || sessions[1].Errors != 0 ||
		len(sessions[0].RunIDs) != 1 || !slices.Equal(sessions[0].RunIDs, sessions[1].RunIDs) {
		t.Errorf("sessions: %+v; want math and notes, their calls, no errors, one run", sessions)
	}

	// What the action runs on log-dir.
	check := exec.Command(mcpsnoop, "check", "--max-duration", "5s", logDir)
	check.Env = env
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), "check passed") {
		t.Errorf("check: %v\n%s", err, out)
	}

	unwrap := exec.Command(mcpsnoop, "unwrap", "--client", "claude-code", "--all")
	unwrap.Dir, unwrap.Env = project, env
	if out, err := unwrap.CombinedOutput(); err != nil {
		t.Fatalf("unwrap: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(project, ".mcp.json")); !bytes.Equal(after, before) {
		t.Errorf("unwrap did not restore .mcp.json:\n%s", after)
	}
}

func goBuild(t *testing.T, out string, pkgs ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build", "-o", out}, pkgs...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", pkgs, err, b)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
