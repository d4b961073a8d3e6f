package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// nameless is a session where the client calls a tool without its name
// and the server rightly answers -32602: the client's fault.
var nameless = filepath.Join(casesDir, "blame-client-sent-nameless-call.jsonl")

// TestCheckBlame: --blame gates on the parties it names, in every format,
// and every format names the party of each finding.
func TestCheckBlame(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	tests := []struct {
		blame string
		code  int
	}{
		{"all", 1}, {"client", 1}, {"server", 0}, {"server,transport", 0}, {"transport,client", 1},
	}
	for _, tt := range tests {
		code, stdout, stderr := checkRun(t, "", "--blame", tt.blame, nameless)
		if code != tt.code || stderr != "" {
			t.Errorf("--blame %s: exit %d, want %d\n%s%s", tt.blame, code, tt.code, stdout, stderr)
		}
		// The counters are exact whatever --blame says.
		if !strings.Contains(stdout, "session conf-blame: errors=1 ") {
			t.Errorf("--blame %s: counters changed:\n%s", tt.blame, stdout)
		}
	}

	_, text, _ := checkRun(t, "", "--blame", "server", "-v", nameless)
	if !strings.Contains(text, ":5: error [client]: tools/call (id 1) ended in an error: Invalid params: name is required (code -32602) (not gated)\n") {
		t.Errorf("text -v: the finding line does not name its party as not gated:\n%s", text)
	}

	_, js, _ := checkRun(t, "", "--blame", "server", "--format", "json", nameless)
	var doc struct {
		Blame    []string `json:"blame"`
		Findings []struct {
			Party, Level string
		} `json:"findings"`
		Sessions []struct {
			Parties []struct {
				Party        string
				Total, Gated int
			} `json:"parties"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Blame) != 1 || doc.Blame[0] != "server" || len(doc.Findings) != 1 || doc.Findings[0].Party != "client" || doc.Findings[0].Level != "note" {
		t.Errorf("json: blame %v, findings %+v", doc.Blame, doc.Findings)
	}
	if p := doc.Sessions[0].Parties; len(p) != 1 || p[0].Party != "client" || p[0].Total != 1 || p[0].Gated != 0 {
		t.Errorf("json: session parties %+v", p)
	}

	_, sarif, _ := checkRun(t, "", "--blame", "client", "--format", "sarif", nameless)
	if !strings.Contains(sarif, `"party": "client"`) || !strings.Contains(sarif, `"level": "error"`) {
		t.Errorf("sarif: no party property on an error result:\n%s", sarif)
	}
	_, junit, _ := checkRun(t, "", "--blame", "client", "--format", "junit", nameless)
	if !strings.Contains(junit, `name="conf-blame/error" time="0">`+"\n"+`      <properties>`+"\n"+`        <property name="party" value="client"></property>`) {
		t.Errorf("junit: the failing error case names no party:\n%s", junit)
	}
	_, cq, _ := checkRun(t, "", "--blame", "client", "--format", "codeclimate", nameless)
	if !strings.Contains(cq, `"description": "[client] session conf-blame line 5: tools/call (id 1)`) || !strings.Contains(cq, `"party": "client"`) {
		t.Errorf("codeclimate: no party:\n%s", cq)
	}

	code, _, stderr := checkRun(t, "", "--blame", "server,everyone", nameless)
	if code != 2 || !strings.Contains(stderr, `--blame must be all, or contain server, client, or transport, got "everyone"`) {
		t.Errorf("a bad --blame: exit %d, %q", code, stderr)
	}
}
