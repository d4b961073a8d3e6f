package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

var fixedTime = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

func fixtureInputs(t *testing.T, paths ...string) []capture.Input {
	t.Helper()
	var ins []capture.Input
	for _, p := range paths {
		p = filepath.Join("..", "fixtures", p)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			entries, _ := filepath.Glob(filepath.Join(p, "*.jsonl"))
			for _, e := range entries {
				ins = append(ins, capture.Input{Path: e, Name: e})
			}
			continue
		}
		ins = append(ins, capture.Input{Path: p, Name: p})
	}
	return ins
}

func exportBytes(t *testing.T, f Format, ins []capture.Input, o Options) []byte {
	t.Helper()
	o.GeneratedAt = fixedTime
	x, err := Load(f, ins, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSpilledExportIsTheSame: an export whose pieces went through the spill
// file is byte-identical to one held in memory, in every format.
func TestSpilledExportIsTheSame(t *testing.T) {
	ins := fixtureInputs(t, "store-example.jsonl", "elicit.jsonl", "run-traced")
	for name, f := range map[string]func() Format{"json": NewJSON, "text": NewText, "html": NewHTML} {
		mem := exportBytes(t, f(), ins, Options{})
		disk := exportBytes(t, f(), ins, Options{MemoryBudget: 64, TempDir: t.TempDir()})
		if !bytes.Equal(mem, disk) {
			t.Errorf("%s: the spilled export differs", name)
		}
	}
}

// TestJSONIsCanonical: every document is what encoding/json's Indent makes
// of it (two-space indent, no HTML escaping), and there is one per session.
func TestJSONIsCanonical(t *testing.T) {
	out := exportBytes(t, NewJSON(), fixtureInputs(t, "store-example.jsonl", "mrtr.jsonl", "run-traced"), Options{})
	dec := json.NewDecoder(bytes.NewReader(out))
	var ids []string
	var all bytes.Buffer
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Session struct{ ID string } `json:"session"`
		}
		json.Unmarshal(raw, &doc)
		ids = append(ids, doc.Session.ID)
		json.Indent(&all, raw, "", "  ")
		all.WriteByte('\n')
	}
	if !bytes.Equal(all.Bytes(), out) {
		t.Errorf("the output is not in encoding/json's indented form")
	}
	want := "store-example demo files-97144-f2a752e6b438 github-97145-6513269e0d37 search-97146-0c5ca6a3a450"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("sessions %s, want %s", got, want)
	}
	if !bytes.Contains(out, []byte(`"text": "</script><img src=x onerror=alert(1)>"`)) {
		t.Errorf("json must not HTML-escape payloads")
	}
}

// TestRunOrdersByFirstFrame: with a run, its sessions come in the order of
// their first frames across the logs, whatever order the logs were read in.
func TestRunOrdersByFirstFrame(t *testing.T) {
	ins := fixtureInputs(t, "run-traced")
	// Read the logs newest name first, so first-seen order is not the answer.
	for i, j := 0, len(ins)-1; i < j; i, j = i+1, j-1 {
		ins[i], ins[j] = ins[j], ins[i]
	}
	eng := checker.New(checker.Config{})
	for _, in := range ins {
		f, _ := os.Open(in.Path)
		capture.ReadLog(f, in.Name, func(fr *capture.Frame, line int) bool {
			return eng.Ingest(fr, checker.Position{Name: in.Name, Line: line})
		}, eng.TornTail)
		f.Close()
	}
	runs := eng.Report().Runs
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	out := exportBytes(t, NewText(), ins, Options{Run: &runs[0]})
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if id, ok := strings.CutPrefix(line, "mcpsnoop session "); ok {
			order = append(order, strings.Fields(id)[0])
		}
	}
	want := "files-97144-f2a752e6b438 github-97145-6513269e0d37 search-97146-0c5ca6a3a450"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order %s, want %s", got, want)
	}
}

// TestSlowestCalls: the five slowest finished tool calls, slowest first.
func TestSlowestCalls(t *testing.T) {
	var s sessionState
	for i, d := range []time.Duration{5, 9, 1, 9, 7, 3, 8} {
		r := checker.CallRecord{Index: i, IsTool: true, HasDuration: true, Duration: d * time.Millisecond,
			Start: fixedTime.Add(time.Duration(i) * time.Second)}
		s.noteSlow(&r)
	}
	var got []int
	for _, c := range s.slowest {
		got = append(got, c.CallIndex)
	}
	if want := []int{1, 3, 6, 4, 0}; !equalInts(got, want) {
		t.Errorf("slowest %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLoadOneSessionOfMany: Options.Sessions keeps only the sessions named,
// from a log that interleaves several.
func TestLoadOneSessionOfMany(t *testing.T) {
	var log strings.Builder
	for i, sid := range []string{"a", "b", "a", "b"} {
		fmt.Fprintf(&log, `{"session_id":%q,"seq":%d,"ts":"2026-07-28T12:00:0%dZ","direction":"c2s","raw":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n", sid, i/2+1, i, i)
	}
	x, err := Load(NewJSON(), []capture.Input{{Name: "stdin", Stdin: true}}, strings.NewReader(log.String()), Options{Sessions: map[string]bool{"b": true}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var out bytes.Buffer
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"generated_at"`); n != 1 || !strings.Contains(out.String(), `"id": "b"`) || strings.Contains(out.String(), `"id": "a"`) {
		t.Errorf("want session b alone, got %d documents:\n%.400s", n, out.String())
	}
}
