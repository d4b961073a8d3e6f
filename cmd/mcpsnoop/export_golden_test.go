package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Every export format of the realistic captures is compared with a golden
// file, fixtures/golden/<input>.export.<format>; run-traced is a folder of
// three sessions, all of which must come out. Update after an intended
// change with go test ./cmd/mcpsnoop -run Golden -update.

// exportGoldenInputs are the captures exported, with the sessions each holds.
var exportGoldenInputs = []struct {
	name, path string
	sessions   int
}{
	{"store-example", "fixtures/store-example.jsonl", 1},
	{"mrtr", "fixtures/mrtr.jsonl", 1},
	{"elicit", "fixtures/elicit.jsonl", 1},
	{"run-traced", "fixtures/run-traced", 3},
}

var exportGoldenFormats = []string{"json", "text", "html", "har", "otlp"}

// exportGoldenOwned tells TestGolden which golden files are the export's.
func exportGoldenOwned(base string) bool {
	for _, in := range exportGoldenInputs {
		for _, f := range exportGoldenFormats {
			if base == in.name+".export."+f {
				return true
			}
		}
	}
	return false
}

// pinExportTime fixes generated_at for the test.
func pinExportTime(t *testing.T) {
	old := exportNow
	exportNow = func() time.Time { return time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { exportNow = old })
}

// exportRun runs `mcpsnoop export args...` in-process.
func exportRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"export"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestExportGolden(t *testing.T) {
	t.Chdir("../..")
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	pinExportTime(t)
	for _, in := range exportGoldenInputs {
		for _, format := range exportGoldenFormats {
			t.Run(in.name+"/"+format, func(t *testing.T) {
				code, stdout, stderr := exportRun(t, "", "-T", format, in.path)
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				if got := countSessions(t, format, stdout); got != in.sessions {
					t.Errorf("%d sessions in the %s export, want %d", got, format, in.sessions)
				}
				compareGolden(t, in.name+".export."+format, stdout)
			})
		}
	}
}

// countSessions counts the sessions an export holds, parsing json as a
// stream of documents.
func countSessions(t *testing.T, format, out string) int {
	t.Helper()
	switch format {
	case "json":
		return len(decodeJSONStream(t, out))
	case "text":
		return strings.Count(out, "\nmcpsnoop session ") + btoi(strings.HasPrefix(out, "mcpsnoop session "))
	case "html":
		return strings.Count(out, `class="mcpsnoop-session"`)
	case "har":
		var doc struct {
			Log struct {
				Pages []json.RawMessage `json:"pages"`
			} `json:"log"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("har: %v", err)
		}
		return len(doc.Log.Pages)
	case "otlp":
		var doc struct {
			ResourceSpans []json.RawMessage `json:"resourceSpans"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("otlp: %v", err)
		}
		return len(doc.ResourceSpans)
	}
	return -1
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// exportDoc is the part of a json export document the tests read.
type exportDoc struct {
	GeneratedAt string `json:"generated_at"`
	Session     struct {
		ID            string `json:"id"`
		Requests      int    `json:"requests"`
		MissingFrames int    `json:"missing_frames"`
	} `json:"session"`
	Summary struct {
		Tools        []json.RawMessage `json:"tools"`
		SlowestCalls []json.RawMessage `json:"slowest_calls"`
	} `json:"summary"`
	Calls []struct {
		Index      int             `json:"index"`
		ID         string          `json:"id"`
		Status     string          `json:"status"`
		RoundTrips *int            `json:"round_trips"`
		ServerMs   *float64        `json:"server_time_ms"`
		DurationMs *float64        `json:"duration_ms"`
		Params     json.RawMessage `json:"params"`
	} `json:"calls"`
	Interactions []json.RawMessage `json:"interactions"`
	Elicitations []json.RawMessage `json:"elicitations"`
	Events       []struct {
		Seq       int             `json:"seq"`
		Kind      string          `json:"kind"`
		CallIndex *int            `json:"call_index"`
		Raw       json.RawMessage `json:"raw"`
		Text      string          `json:"text"`
	} `json:"events"`
}

func decodeJSONStream(t *testing.T, out string) []exportDoc {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var docs []exportDoc
	for {
		var d exportDoc
		if err := dec.Decode(&d); err == io.EOF {
			return docs
		} else if err != nil {
			t.Fatalf("json export does not parse: %v", err)
		}
		docs = append(docs, d)
	}
}

// TestExportJSONShape checks the json exports against the facts they must
// carry, and has jq read them as a stream.
func TestExportJSONShape(t *testing.T) {
	t.Chdir("../..")
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	for _, in := range exportGoldenInputs {
		code, out, stderr := exportRun(t, "", in.path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", in.name, code, stderr)
		}
		for _, d := range decodeJSONStream(t, out) {
			if d.Summary.Tools == nil || d.Summary.SlowestCalls == nil || d.Interactions == nil || d.Elicitations == nil {
				t.Errorf("%s: tools, slowest_calls, interactions and elicitations must be arrays", d.Session.ID)
			}
			for i, c := range d.Calls {
				if c.Index != i || c.RoundTrips == nil || *c.RoundTrips < 1 {
					t.Errorf("%s call %d: index %d, round_trips %v", d.Session.ID, i, c.Index, c.RoundTrips)
				}
				if (c.DurationMs == nil) != (c.ServerMs == nil) || (c.ServerMs != nil && *c.ServerMs > *c.DurationMs) {
					t.Errorf("%s call %d: duration %v, server time %v", d.Session.ID, i, c.DurationMs, c.ServerMs)
				}
			}
			for _, ev := range d.Events {
				if ev.CallIndex != nil && (*ev.CallIndex < 0 || *ev.CallIndex >= len(d.Calls)) {
					t.Errorf("%s #%d: call_index %d out of range", d.Session.ID, ev.Seq, *ev.CallIndex)
				}
				if ev.Kind == "meta" {
					t.Errorf("%s: the meta frame is not an event", d.Session.ID)
				}
			}
		}
		if jq, err := exec.LookPath("jq"); err == nil {
			cmd := exec.Command(jq, "-c", "[.session.id, (.calls|length), (.events|length), (.interactions|length)]")
			cmd.Stdin = strings.NewReader(out)
			res, err := cmd.Output()
			if err != nil {
				t.Errorf("%s: jq: %v", in.name, err)
			} else if n := strings.Count(string(res), "\n"); n != in.sessions {
				t.Errorf("%s: jq read %d documents, want %d", in.name, n, in.sessions)
			}
		} else {
			t.Log("jq not installed; the stream was checked with encoding/json only")
		}
	}
	// The MRTR capture: one book_flight interaction of three round trips,
	// and its call knows the server's share of the 38.2 s.
	_, out, _ := exportRun(t, "", "fixtures/mrtr.jsonl")
	d := decodeJSONStream(t, out)[0]
	if len(d.Interactions) != 1 || *d.Calls[0].RoundTrips != 3 || *d.Calls[0].ServerMs != 1200 || *d.Calls[0].DurationMs != 38200 {
		t.Errorf("mrtr: %d interactions, call 0 round trips %d, server %v of %v ms",
			len(d.Interactions), *d.Calls[0].RoundTrips, *d.Calls[0].ServerMs, *d.Calls[0].DurationMs)
	}
}
