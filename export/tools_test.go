package export

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

type toolsLine struct {
	Session   string           `json:"session"`
	Label     string           `json:"label"`
	Tools     []map[string]any `json:"tools"`
	Prompts   []map[string]any `json:"prompts"`
	Resources []map[string]any `json:"resources"`
}

func exportTools(t *testing.T, in []capture.Input, stdin string) []toolsLine {
	t.Helper()
	x, err := Load(NewTools(), in, strings.NewReader(stdin), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var out bytes.Buffer
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	var lines []toolsLine
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var tl toolsLine
		if err := json.Unmarshal([]byte(l), &tl); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		var keys map[string]json.RawMessage
		json.Unmarshal([]byte(l), &keys)
		if len(keys) != 5 {
			t.Errorf("line has %d members, want session, label, tools, prompts, resources: %s", len(keys), l)
		}
		lines = append(lines, tl)
	}
	return lines
}

func names(items []map[string]any) string {
	var out []string
	for _, it := range items {
		n, _ := it["name"].(string)
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

// export -T tools on a real capture: one line per session with the
// definitions as the server last listed them, resource templates among
// the resources.
func TestToolsExportRealCapture(t *testing.T) {
	const path = "../checker/testdata/security/benign/everything.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	lines := exportTools(t, []capture.Input{{Name: path, Path: path}}, "")
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1", len(lines))
	}
	l := lines[0]
	if l.Session != "everything-11199-b7bc04147a41" || l.Label != "everything" || len(l.Tools) != 14 || len(l.Prompts) != 4 || len(l.Resources) != 9 {
		t.Fatalf("session %q label %q: %d tools, %d prompts, %d resources", l.Session, l.Label, len(l.Tools), len(l.Prompts), len(l.Resources))
	}
	if l.Tools[0]["name"] != "echo" || l.Tools[0]["inputSchema"] == nil || l.Resources[8]["uriTemplate"] == nil {
		t.Errorf("definitions not as sent: %v / %v", l.Tools[0], l.Resources[8])
	}
}

// A later listing replaces the earlier one, a cursored page extends it, a
// session that listed nothing has empty lists, and an error answer lists
// nothing.
func TestToolsExportListings(t *testing.T) {
	log := `{"session_id":"a","server_label":"srv","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"session_id":"a","server_label":"srv","seq":2,"ts":"2026-07-28T12:00:01Z","direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"old"}]}}}
{"session_id":"a","server_label":"srv","seq":3,"ts":"2026-07-28T12:00:02Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}
{"session_id":"a","server_label":"srv","seq":4,"ts":"2026-07-28T12:00:03Z","direction":"s2c","raw":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"one"}],"nextCursor":"p2"}}}
{"session_id":"a","server_label":"srv","seq":5,"ts":"2026-07-28T12:00:04Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}}
{"session_id":"a","server_label":"srv","seq":6,"ts":"2026-07-28T12:00:05Z","direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"two"}]}}}
{"session_id":"a","server_label":"srv","seq":7,"ts":"2026-07-28T12:00:06Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":4,"method":"prompts/list"}}
{"session_id":"a","server_label":"srv","seq":8,"ts":"2026-07-28T12:00:07Z","direction":"s2c","raw":{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}}
{"session_id":"b","server_label":"other","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}
`
	lines := exportTools(t, []capture.Input{{Name: "stdin", Stdin: true}}, log)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	if got := names(lines[0].Tools); got != "one,two" || len(lines[0].Prompts) != 0 || lines[0].Prompts == nil {
		t.Errorf("session a: tools %q, prompts %v", got, lines[0].Prompts)
	}
	if lines[1].Session != "b" || lines[1].Label != "other" || lines[1].Tools == nil || len(lines[1].Tools) != 0 || lines[1].Resources == nil {
		t.Errorf("session b: %+v", lines[1])
	}
}
