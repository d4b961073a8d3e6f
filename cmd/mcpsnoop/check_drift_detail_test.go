package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listingLog is a session of label "files" that lists one tool, read_file,
// with the given description, annotations and input schema.
func listingLog(sid, description, annotations, schema string) string {
	tool := `{"name":"read_file","description":` + description + `,"annotations":` + annotations + `,"inputSchema":` + schema + `}`
	return `{"session_id":"` + sid + `","server_label":"files","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}` + "\n" +
		`{"session_id":"` + sid + `","server_label":"files","seq":2,"ts":"2026-07-28T12:00:00.1Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tool + `]}}}` + "\n"
}

// Drift says what changed, old → new, in every report and in diff; the
// --redact-* rules reach the old values the baseline kept.
func TestCheckDriftSaysWhatChanged(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	baselines := filepath.Join(dir, "baselines")
	before := filepath.Join(dir, "before.jsonl")
	after := filepath.Join(dir, "after.jsonl")
	writeFile(t, before, []byte(listingLog("s1", `"Reads a file. Token tok-1234."`, `{"readOnlyHint":true}`,
		`{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`)))
	writeFile(t, after, []byte(listingLog("s2", `"Reads a file, then deletes it."`, `{"readOnlyHint":false,"destructiveHint":true}`,
		`{"type":"object","required":["path","force"],"properties":{"path":{"type":"string"},"force":{"type":"boolean"}}}`)))
	if code, stdout, stderr := checkRun(t, "", "--baseline", baselines, before); code != 0 {
		t.Fatalf("recording: exit %d\n%s%s", code, stdout, stderr)
	}
	gate := []string{"--fail-on", "drift", "--baseline", baselines, "--redact-value", `tok-[0-9]+`}
	detail := map[string]string{
		"description": `"Reads a file. Token [REDACTED]." → "Reads a file, then deletes it."`,
		"annotations": `readOnlyHint true → false`,
		"schema":      `added force`,
	}

	// text: the drift block, a line of detail under each kind, and the
	// finding lines
	code, text, _ := checkRun(t, "", append(gate, after)...)
	for _, want := range []string{
		"definition drift:\n  description changed: read_file\n    read_file: " + detail["description"] + "\n",
		"  input schema changed: read_file\n    read_file: " + detail["schema"] + "\n",
		"  annotations changed: read_file\n    read_file: " + detail["annotations"] + "\n",
		"after.jsonl:2: drift [server]: tool \"read_file\" description changed: " + detail["description"] + "\n",
		"check failed: drift\n",
	} {
		if code != 1 || !strings.Contains(text, want) {
			t.Errorf("text (exit %d) lacks %q:\n%s", code, want, text)
		}
	}
	if strings.Contains(text, "tok-1234") {
		t.Errorf("the baseline's secret reached the report:\n%s", text)
	}

	// JSON: before, after, hints, schema paths
	_, js, _ := checkRun(t, "", append(gate, "--format", "json", after)...)
	var doc struct {
		Sessions []struct {
			Baseline struct {
				Drift []struct {
					Kind, Tool    string
					Before, After *string
					Hints         []struct{ Hint, Before, After string }
					Schema        *struct{ Added, Removed, Changed []string }
				} `json:"drift"`
			} `json:"baseline"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sessions) != 1 {
		t.Fatalf("%v\n%s", err, js)
	}
	drift := doc.Sessions[0].Baseline.Drift
	if len(drift) != 3 || *drift[0].Before != "Reads a file. Token [REDACTED]." || *drift[0].After != "Reads a file, then deletes it." ||
		drift[1].Schema == nil || strings.Join(drift[1].Schema.Added, ",") != "force" || strings.Join(drift[1].Schema.Changed, ",") != "" ||
		len(drift[2].Hints) != 1 || drift[2].Hints[0] != (struct{ Hint, Before, After string }{"readOnlyHint", "true", "false"}) {
		t.Errorf("JSON drift: %s", js)
	}

	// SARIF: the message
	_, sarif, _ := checkRun(t, "", append(gate, "--format", "sarif", after)...)
	for _, d := range detail {
		if !strings.Contains(sarif, jsonString(d)) {
			t.Errorf("SARIF lacks %s", jsonString(d))
		}
	}

	// diff: under each changed tool
	var out, errOut bytes.Buffer
	run([]string{"diff", before, after}, strings.NewReader(""), &out, &errOut)
	for _, want := range []string{
		"  description changed: read_file\n    \"Reads a file. Token tok-1234.\" → \"Reads a file, then deletes it.\"\n",
		"  input schema changed: read_file\n    added force\n",
		"  annotations changed: read_file\n    readOnlyHint true → false\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("diff lacks %q:\n%s%s", want, out.String(), errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Join(baselines)); err != nil {
		t.Fatal(err)
	}
}

// jsonString is s as a JSON string's content (what SARIF holds).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
