package checker_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/junit"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/mcpsnoop/mcpsnoop/sarif"
)

// FuzzCheck feeds arbitrary bytes as a log through the reader, the engine
// and every renderer. Nothing may panic or hang, whatever the input.
func FuzzCheck(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "fixtures", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*.jsonl"))
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"session_id":"s","seq":1,"raw":{"jsonrpc":"2.0","id":1,"method":"tools/call"}}` + "\n" + `{"session_id":"s","se`))
	f.Add([]byte("{\n\"session_id\":\"s\"}{\"session_id\":\"t\",\"raw\":[{]}\n"))
	gates, _ := checker.ParseFailOn("error,invalid,warn,mismatch,pending,late-result,drift,deprecated,incomplete,schema,wire")
	f.Fuzz(func(t *testing.T, data []byte) {
		eng := checker.New(checker.Config{FailOn: gates, MaxDuration: 1, ExpectTools: []string{"echo"}, ForbidTools: []string{"rm"}, MaxFindings: 50})
		r := capture.NewReader(bytes.NewReader(data), "fuzz.jsonl")
		for {
			fr, line, err := r.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, capture.ErrTornLine) {
				eng.TornTail()
				continue
			}
			if errors.Is(err, capture.ErrTornTail) {
				eng.TornTail()
				break
			}
			if err != nil {
				return // a clear error is a fine answer to garbage
			}
			eng.Ingest(&fr, checker.Position{Path: "fuzz.jsonl", Name: "fuzz.jsonl", Line: line})
		}
		rep := eng.Report()
		if len(rep.Findings) > 50 || rep.FindingsTotal < len(rep.Findings) {
			t.Fatalf("findings cap broken: kept %d of %d", len(rep.Findings), rep.FindingsTotal)
		}
		for _, render := range []func(io.Writer) error{
			func(w io.Writer) error { return report.WriteText(w, rep, report.TextOptions{Verbose: true}) },
			func(w io.Writer) error { return report.WriteJSON(w, rep) },
			func(w io.Writer) error { return junit.Write(w, rep, junit.Options{}) },
			func(w io.Writer) error { return sarif.Write(w, rep, sarif.Options{WorkDir: "/"}) },
		} {
			if err := render(io.Discard); err != nil {
				t.Fatalf("render: %v", err)
			}
		}
	})
}
