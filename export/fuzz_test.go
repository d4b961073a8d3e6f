package export_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/export/har"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
)

// fuzzFormats are every export format, by -T name.
var fuzzFormats = []struct {
	name string
	new  func() export.Format
}{
	{"json", export.NewJSON},
	{"text", export.NewText},
	{"html", export.NewHTML},
	{"har", har.New},
	{"otlp", otlp.New},
}

// FuzzExport runs arbitrary bytes as a log (standard input) through the
// exporter and every format, plain and redacted. A log that does not load
// is fine; one that loads must export without error, and each output must
// be what its format promises: a stream of JSON documents (json), one JSON
// document (har), an OTLP/JSON request the collector's types decode (otlp),
// a page no payload can close a <script> element of (html).
//
// CI runs it briefly:
//
//	go test ./export -run '^$' -fuzz '^FuzzExport$' -fuzztime 20s -fuzzminimizetime 2s
func FuzzExport(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "fixtures", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*.jsonl"))
	for _, p := range append(seeds, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 {
			continue // big seeds only slow the fuzzer down
		}
		f.Add(b)
	}
	red, err := capture.NewRedactor(capture.RedactOptions{
		Secrets: true, Values: []string{`sk-[A-Za-z0-9]+`}, Paths: []string{`$.params.arguments.text`},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, log []byte) {
		for _, r := range []*capture.Redactor{nil, red} {
			for _, ff := range fuzzFormats {
				out, ok := exportStdin(t, ff.new(), log, r)
				if !ok {
					return // not a log: every format refuses it alike
				}
				checkFuzzOutput(t, ff.name, out)
			}
		}
	})
}

// exportStdin exports log, given as standard input, with f; ok is false
// when the input does not load as a log.
func exportStdin(t *testing.T, f export.Format, log []byte, red *capture.Redactor) (out []byte, ok bool) {
	t.Helper()
	in := []capture.Input{{Name: "stdin", Stdin: true}}
	x, err := export.Load(f, in, bytes.NewReader(log), export.Options{
		GeneratedAt: time.Date(2026, 8, 2, 9, 0, 0, 0, time.UTC), Version: "fuzz",
		Redactor: red, TempDir: t.TempDir(), MemoryBudget: 4 << 10,
	})
	if err != nil {
		return nil, false
	}
	defer x.Close()
	if x.Sessions() == 0 {
		return nil, false
	}
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		t.Fatalf("a log that loads fails to export: %v", err)
	}
	return buf.Bytes(), true
}

func checkFuzzOutput(t *testing.T, format string, out []byte) {
	t.Helper()
	switch format {
	case "json":
		dec := json.NewDecoder(bytes.NewReader(out))
		n := 0
		for {
			var doc map[string]json.RawMessage
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if strings.Contains(err.Error(), "exceeded max depth") {
					return // encoding/json's own nesting limit, not ours
				}
				t.Fatalf("json: document %d does not parse: %v\n%s", n, err, out)
			}
			for _, k := range []string{"session", "summary", "calls", "events"} {
				if doc[k] == nil {
					t.Fatalf("json: document %d lacks %q", n, k)
				}
			}
			n++
		}
		if n == 0 {
			t.Fatal("json: no document")
		}
	case "har":
		var doc struct {
			Log struct {
				Version string            `json:"version"`
				Entries []json.RawMessage `json:"entries"`
			} `json:"log"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("har: %v\n%s", err, out)
		}
		if doc.Log.Version != "1.2" || doc.Log.Entries == nil {
			t.Fatalf("har: not a HAR 1.2 log\n%s", out)
		}
	case "otlp":
		if !json.Valid(out) {
			t.Fatalf("otlp: not JSON\n%s", out)
		}
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON(out); err != nil {
			t.Fatalf("otlp: not an OTLP/JSON export request: %v\n%s", err, out)
		}
	case "html":
		checkScripts(t, out)
	}
}

// checkScripts fails unless every <script> element of page is closed by
// its own </script> (a payload that closed one early would add a closing
// tag) and no element holds "<!--", which would change how it is parsed.
func checkScripts(t *testing.T, page []byte) {
	t.Helper()
	lower := bytes.ToLower(page)
	rest := lower
	for {
		i := bytes.Index(rest, []byte("<script"))
		if i < 0 {
			break
		}
		rest = rest[i+len("<script"):]
		j := bytes.Index(rest, []byte("</script"))
		if j < 0 {
			t.Fatal("html: a <script> element is never closed")
		}
		body := rest[:j]
		if bytes.Contains(body, []byte("<script")) || bytes.Contains(body, []byte("<!--")) {
			t.Fatalf("html: a script element holds markup: %.200q", body)
		}
		rest = rest[j+len("</script"):]
	}
	if n, m := bytes.Count(lower, []byte("<script")), bytes.Count(lower, []byte("</script")); n != m {
		t.Fatalf("html: %d <script> elements but %d </script> tags: a payload closed one", n, m)
	}
}
