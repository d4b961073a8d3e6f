// The recipe of examples/conformance: a workflow that runs the official
// conformance suite against a stdio server through mcpsnoop bridge and
// gates on the recorded traffic. Its steps run for real under -tags e2e
// (e2e_test.go, from .ci/run); this file keeps the workflow's shape.
package conformance_test

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type step struct {
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

type job struct {
	Steps []step `yaml:"steps"`
}

func loadJob(t *testing.T) job {
	t.Helper()
	data, err := os.ReadFile("workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]job `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("workflow.yml: %v", err)
	}
	j, ok := wf.Jobs["conformance"]
	if !ok {
		t.Fatal("workflow.yml has no job conformance")
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
	t.Fatalf("workflow.yml has no step %q", name)
	return step{}
}

// TestWorkflowShape: the bridge, the suite against it, a stop that always
// runs (so the logs are flushed), a check that gates on the server's
// faults with JUnit and SARIF, and the SARIF uploaded.
func TestWorkflowShape(t *testing.T) {
	j := loadJob(t)
	for name, want := range map[string][]string{
		"Start the bridge":           {"mcpsnoop bridge", "--log-dir artifacts/mcp", "-- bin/server"},
		"Run the conformance suite":  {"@modelcontextprotocol/conformance@", "--url http://127.0.0.1:7001/mcp"},
		"Stop the bridge":            {"kill"},
		"Check the recorded traffic": {"mcpsnoop check", "--blame server", "--junit", "--sarif", "artifacts/mcp"},
	} {
		s := j.step(t, name)
		for _, w := range want {
			if !strings.Contains(s.Run, w) {
				t.Errorf("step %q does not run %q:\n%s", name, w, s.Run)
			}
		}
	}
	if j.step(t, "Stop the bridge").If != "always()" || j.step(t, "Check the recorded traffic").If != "always()" {
		t.Error("the bridge's stop and the check must run whatever the suite's verdict")
	}
	if up := j.step(t, "Upload the SARIF to code scanning"); up.With["sarif_file"] != "artifacts/mcpsnoop.sarif" {
		t.Errorf("the SARIF upload takes %q", up.With["sarif_file"])
	}
}
