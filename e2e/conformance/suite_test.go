package conformance

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeScenario writes a scenario folder as the suite does: its name, the
// moment it began, and its checks.json (none when checks is "").
func writeScenario(t *testing.T, dir, folder, checks string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(folder))
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if checks != "" {
		if err := os.WriteFile(filepath.Join(path, "checks.json"), []byte(checks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "server-tools-call-error-2026-12-06T14-05-01-768Z", `[{"id":"tools-call-error","status":"SUCCESS"}]`)
	writeScenario(t, dir, "server-ping-2026-12-06T14-05-01-095Z", `[{"id":"ping","status":"SUCCESS"},{"id":"x","status":"INFO"}]`)
	writeScenario(t, dir, "server-server-sse-polling-2026-12-06T14-05-02-020Z",
		`[{"id":"server-sse-priming-event","status":"WARNING"},{"id":"server-sse-retry-field","status":"WARNING"}]`)
	writeScenario(t, dir, "server-tools-call-sampling-2026-12-06T14-05-01-960Z",
		`[{"id":"tools-call-sampling","status":"FAILURE","errorMessage":"Server did not request sampling"},{"id":"w","status":"WARNING"}]`)
	writeScenario(t, dir, "server-caching-2026-12-06T14-05-03-001Z", "") // the scenario threw: no checks.json
	got, err := ReadResults(dir, "server-", nil)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Scenario   string
		Start      string
		Verdict    Verdict
		Objections []string
	}
	var sums []summary
	for _, r := range got {
		sums = append(sums, summary{r.Scenario, r.Start.Format(time.RFC3339Nano), r.Verdict(), r.Objections()})
	}
	want := []summary{
		{"ping", "2026-12-06T14:05:01.095Z", Pass, nil},
		{"tools-call-error", "2026-12-06T14:05:01.768Z", Pass, nil},
		{"tools-call-sampling", "2026-12-06T14:05:01.96Z", Fail, []string{"tools-call-sampling", "warning:w"}},
		{"server-sse-polling", "2026-12-06T14:05:02.02Z", Pass, []string{"warning:server-sse-priming-event", "warning:server-sse-retry-field"}},
		{"caching", "2026-12-06T14:05:03.001Z", Fail, []string{"(no checks.json)"}},
	}
	if !reflect.DeepEqual(sums, want) {
		t.Errorf("got  %+v\nwant %+v", sums, want)
	}
}

func TestReadResultsOfClientScenarios(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "auth/metadata-default-2026-12-06T13-40-58-657Z", `[{"id":"a","status":"FAILURE"}]`)
	writeScenario(t, dir, "initialize-2026-12-06T13-40-58-642Z", `[{"id":"b","status":"SUCCESS"}]`)
	got, err := ReadResults(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Scenario != "initialize" || got[1].Scenario != "auth/metadata-default" || got[1].Verdict() != Fail {
		t.Errorf("got %+v", got)
	}
}

func TestReadResultsRefuses(t *testing.T) {
	for name, folders := range map[string][]string{
		"a scenario twice": {"server-ping-2026-12-06T14-05-01-095Z", "server-ping-2026-12-06T14-06-01-095Z"},
		"another prefix":   {"client-ping-2026-12-06T14-05-01-095Z"},
		"a bad stamp":      {"server-ping-2026-13-06T14-05-01-095Z"},
	} {
		dir := t.TempDir()
		for _, f := range folders {
			writeScenario(t, dir, f, `[]`)
		}
		if _, err := ReadResults(dir, "server-", nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	dir := t.TempDir()
	writeScenario(t, dir, "server-ping-2026-12-06T14-05-01-095Z", `{not json`)
	if _, err := ReadResults(dir, "server-", nil); err == nil || !strings.Contains(err.Error(), "checks.json") {
		t.Errorf("a broken checks.json: %v", err)
	}
}

// Two scenarios that began in the same millisecond come in the order the
// suite ran them, which its output says.
func TestReadResultsInRunOrder(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "server-tasks-required-task-error-2026-12-06T15-29-58-827Z", `[]`)
	writeScenario(t, dir, "server-tasks-status-notifications-2026-12-06T15-29-58-827Z", `[]`)
	output := []byte("Running all suite (2 scenarios)\n\n=== Running scenario: tasks-status-notifications ===\nRunning client scenario ...\n\n=== Running scenario: tasks-required-task-error ===\n")
	order := RunOrder(output)
	if !reflect.DeepEqual(order, []string{"tasks-status-notifications", "tasks-required-task-error"}) {
		t.Fatalf("RunOrder: %v", order)
	}
	got, err := ReadResults(dir, "server-", order)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Scenario != "tasks-status-notifications" || got[1].Scenario != "tasks-required-task-error" {
		t.Errorf("order: %s, %s", got[0].Scenario, got[1].Scenario)
	}
	if got[1].End.Before(got[1].Start) {
		t.Errorf("End %s before Start %s", got[1].End, got[1].Start)
	}
}
