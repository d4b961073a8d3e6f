package main

import (
	"debug/buildinfo"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestDemoLogFindings checks the log the demo records with mcpsnoop's own
// checker, every frame validated against its revision's schema and the
// security rules run: exactly the two findings the demo documents (the
// alerts tool fails, the server's; radar does not exist, the client's),
// no frame breaking the schema, nothing pending, nothing else.
func TestDemoLogFindings(t *testing.T) {
	old := demoSlow
	demoSlow = 0
	defer func() { demoSlow = old }()
	logPath, err := recordDemo(t.Context(), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	eng := checker.New(checker.Config{Wire: true, Security: true})
	if err := ingestInput(eng, capture.Input{Path: logPath, Name: logPath}, nil); err != nil {
		t.Fatal(err)
	}
	rep := eng.Report()
	if !rep.Wire || !rep.Security {
		t.Error("the schema and security checks did not run")
	}
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(rep.Sessions))
	}
	s := rep.Sessions[0]
	if want := (checker.Counters{Errors: 2}); s.Counters != want {
		t.Errorf("counters %+v, want %+v", s.Counters, want)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s: %s", f.Level, f.Party, f.Method, f.Tool, f.Text))
	}
	want := []string{
		`error server tools/call alerts: tools/call alerts (id 6) ended in an error: the result is marked isError: no alert feed for region "XX"`,
		`error client tools/call radar: tools/call radar (id 7) ended in an error: unknown tool "radar" (code -32602)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
	if s.Transport != "http" || s.Calls != 9 || filepath.Base(logPath) != s.ID+".jsonl" {
		t.Errorf("session %s (%s): %d calls", s.ID, s.Transport, s.Calls)
	}
}

// TestBinaryLinksNoMCPSDK: the binary every shim starts holds none of the
// MCP Go SDK's modules (the demo's peers are mcpsnoop's own); tests may
// use the SDK, the binary may not.
func TestBinaryLinksNoMCPSDK(t *testing.T) {
	info, err := buildinfo.ReadFile(mcpsnoopBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	heavy := []string{"github.com/modelcontextprotocol/", "golang.org/x/oauth2", "github.com/google/jsonschema-go", "github.com/segmentio/"}
	for _, m := range info.Deps {
		for _, h := range heavy {
			if strings.HasPrefix(m.Path, h) {
				t.Errorf("the binary links %s %s", m.Path, m.Version)
			}
		}
	}
}
