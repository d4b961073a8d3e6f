package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A proxy log as mcpsnoop http writes one: a meta frame, then the
// exchanges of three scenarios run one after another.
const proxyLog = `{"session_id":"s-1","server_label":"127.0.0.1:9","seq":1,"ts":"2026-12-06T14:05:00.000000001Z","direction":"meta","transport":"http","raw":{"target":{"scheme":"http","host":"127.0.0.1","port":9}}}
{"session_id":"s-1","server_label":"127.0.0.1:9","seq":2,"ts":"2026-12-06T14:05:01.095000000Z","direction":"c2s","transport":"http","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"<&>"}}},"conn_id":"127.0.0.1:1"}
{"session_id":"s-1","server_label":"127.0.0.1:9","seq":3,"ts":"2026-12-06T14:05:01.096000000Z","direction":"s2c","transport":"http","raw":{"jsonrpc":"2.0","id":0,"result":{"n": 1.50}},"conn_id":"127.0.0.1:1","status":200}
{"session_id":"s-1","server_label":"127.0.0.1:9","seq":4,"ts":"2026-12-06T14:05:01.767999999Z","direction":"s2c","transport":"http","conn_id":"127.0.0.1:1","status":405}
{"session_id":"s-1","server_label":"127.0.0.1:9","seq":5,"ts":"2026-12-06T14:05:01.768000000Z","direction":"c2s","transport":"http","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}},"conn_id":"127.0.0.1:2"}
{"session_id":"s-1","server_label":"127.0.0.1:9","seq":6,"ts":"2026-12-06T14:05:01.769000000Z","direction":"s2c","transport":"http","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}},"conn_id":"127.0.0.1:2","status":200}
`

func results(starts map[string]string) []Result {
	var rs []Result
	for _, name := range []string{"ping", "tools-call-error", "auth/empty"} {
		if s, ok := starts[name]; ok {
			ts, _ := time.Parse(time.RFC3339Nano, s)
			rs = append(rs, Result{Scenario: name, Start: ts})
		}
	}
	return rs
}

func readFrames(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var frames []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		frames = append(frames, m)
	}
	return frames
}

func TestSplit(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "recording.jsonl")
	os.WriteFile(log, []byte(proxyLog), 0o644)
	pieces, err := Split(log, results(map[string]string{
		"ping":             "2026-12-06T14:05:01.095Z",
		"tools-call-error": "2026-12-06T14:05:01.768Z",
		"auth/empty":       "2026-12-06T14:05:02.000Z",
	}), filepath.Join(dir, "pieces"), false)
	if err != nil {
		t.Fatal(err)
	}
	// Each piece's frames, by the seq they had in the log.
	want := []struct {
		scenario string
		seqs     []int
	}{
		{"ping", []int{1, 2, 3, 4}},
		{"tools-call-error", []int{1, 5, 6}},
		{"auth/empty", []int{1}},
	}
	tsOf := map[string]int{} // a frame's ts -> its seq in the log
	for _, line := range strings.Split(strings.TrimSpace(proxyLog), "\n") {
		var f struct {
			Seq int    `json:"seq"`
			TS  string `json:"ts"`
		}
		json.Unmarshal([]byte(line), &f)
		tsOf[`"`+f.TS+`"`] = f.Seq
	}
	if len(pieces) != len(want) {
		t.Fatalf("%d pieces, want %d", len(pieces), len(want))
	}
	for i, w := range want {
		p := pieces[i]
		if p.Scenario != w.scenario || p.Frames != len(w.seqs)-1 || p.Path != filepath.Join(dir, "pieces", filepath.FromSlash(w.scenario)+".jsonl") {
			t.Errorf("piece %d: %+v, want %s with %d frames", i, p, w.scenario, len(w.seqs)-1)
		}
		frames := readFrames(t, p.Path)
		var seqs []int
		for _, f := range frames {
			seqs = append(seqs, tsOf[string(f["ts"])])
		}
		if !reflect.DeepEqual(seqs, w.seqs) {
			t.Errorf("%s: the frames of seqs %v, want %v", w.scenario, seqs, w.seqs)
		}
		for j, f := range frames {
			if got := string(f["seq"]); got != itoa(j+1) {
				t.Errorf("%s frame %d: seq %s, want %d", w.scenario, j, got, j+1)
			}
			if got, want := string(f["session_id"]), `"s-1-`+strings.ReplaceAll(w.scenario, "/", "-")+`"`; got != want {
				t.Errorf("%s frame %d: session_id %s, want %s", w.scenario, j, got, want)
			}
		}
	}
	// Every other byte of a frame is kept: peer text is not escaped, a
	// number keeps its spelling.
	ping := readFrames(t, pieces[0].Path)
	if got := string(ping[1]["raw"]); !strings.Contains(got, `"name":"<&>"`) {
		t.Errorf("initialize raw changed: %s", got)
	}
	if got := string(ping[2]["raw"]); !strings.Contains(got, `"n":1.50`) {
		t.Errorf("result raw changed: %s", got)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSplitRefuses(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "recording.jsonl")
	os.WriteFile(log, []byte(proxyLog), 0o644)
	// Traffic before the first scenario began: something else talked to
	// the proxy.
	if _, err := Split(log, results(map[string]string{"ping": "2026-12-06T14:05:01.096Z"}), filepath.Join(dir, "a"), false); err == nil || !strings.Contains(err.Error(), "before the first scenario") {
		t.Errorf("traffic before the first scenario: %v", err)
	}
	// Scenarios out of order.
	rs := results(map[string]string{"ping": "2026-12-06T14:05:01.095Z", "tools-call-error": "2026-12-06T14:05:01.000Z"})
	if _, err := Split(log, rs, filepath.Join(dir, "b"), false); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("scenarios out of order: %v", err)
	}
	// A line that is not a frame.
	os.WriteFile(log, []byte(proxyLog+"not json\n"), 0o644)
	if _, err := Split(log, results(map[string]string{"ping": "2026-12-06T14:05:01.095Z"}), filepath.Join(dir, "c"), false); err == nil || !strings.Contains(err.Error(), "recording.jsonl:7") {
		t.Errorf("a broken line: %v", err)
	}
}

// The cut between two scenarios falls at the later of the first's end and
// the second's start: a frame of the first in the millisecond the second
// began stays with the first.
func TestSplitAtTheLaterOfEndAndStart(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "recording.jsonl")
	os.WriteFile(log, []byte(proxyLog), 0o644)
	at := func(s string) time.Time { ts, _ := time.Parse(time.RFC3339Nano, s); return ts }
	rs := []Result{
		// ping's checks.json was written after the 405 of seq 4 (which
		// shares tools-call-error's starting millisecond, .767) came.
		{Scenario: "ping", Start: at("2026-12-06T14:05:01.095Z"), End: at("2026-12-06T14:05:01.767999999Z")},
		{Scenario: "tools-call-error", Start: at("2026-12-06T14:05:01.767Z"), End: at("2026-12-06T14:05:01.9Z")},
	}
	pieces, err := Split(log, rs, filepath.Join(dir, "pieces"), false)
	if err != nil {
		t.Fatal(err)
	}
	if pieces[0].Frames != 3 || pieces[1].Frames != 2 {
		t.Errorf("ping has %d frames, tools-call-error %d; want 3 and 2", pieces[0].Frames, pieces[1].Frames)
	}
}

// TestMergeThenSplit: the bridge's logs, one per server process, merged
// by time and cut into scenarios. A session that opens with initialize
// (a 2025-11-25 session, a process of its own) stays whole in the scenario
// it began in, its late answer too; the shared 2026-07-28 process is cut
// by time. Each session's frames keep their own seq run, so check counts
// none lost.
func TestMergeThenSplit(t *testing.T) {
	dir := t.TempDir()
	logA := `{"session_id":"a","seq":1,"ts":"2026-12-06T14:05:01.000Z","direction":"meta","transport":"stdio","raw":{"command":["node"]}}
{"session_id":"a","seq":2,"ts":"2026-12-06T14:05:01.100Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"method":"initialize"}}
{"session_id":"a","seq":3,"ts":"2026-12-06T14:05:02.300Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"result":{}}}
`
	logShared := `{"session_id":"s","seq":1,"ts":"2026-12-06T14:05:01.150Z","direction":"meta","transport":"stdio","raw":{"command":["node"]}}
{"session_id":"s","seq":2,"ts":"2026-12-06T14:05:01.200Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"session_id":"s","seq":3,"ts":"2026-12-06T14:05:01.210Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"session_id":"s","seq":4,"ts":"2026-12-06T14:05:02.100Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}
{"session_id":"s","seq":5,"ts":"2026-12-06T14:05:02.110Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}}
`
	a, shared, merged := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "merged.jsonl")
	os.WriteFile(a, []byte(logA), 0o644)
	os.WriteFile(shared, []byte(logShared), 0o644)
	if err := Merge([]string{a, shared}, merged); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range readFrames(t, merged) {
		var sid string
		json.Unmarshal(f["session_id"], &sid)
		order = append(order, sid+string(f["seq"]))
	}
	if want := []string{"a1", "a2", "s1", "s2", "s3", "s4", "s5", "a3"}; !reflect.DeepEqual(order, want) {
		t.Errorf("merged: %v, want %v", order, want)
	}
	start := func(s string) time.Time { ts, _ := time.Parse(time.RFC3339Nano, s); return ts }
	rs := []Result{
		{Scenario: "one", Start: start("2026-12-06T14:05:00.900Z"), End: start("2026-12-06T14:05:01.250Z")},
		{Scenario: "two", Start: start("2026-12-06T14:05:02.000Z"), End: start("2026-12-06T14:05:03.000Z")},
	}
	for _, tc := range []struct {
		bySession bool
		want      [][]string
	}{
		{true, [][]string{
			// a's late answer stays with its request.
			{"a-one#1", "a-one#2", "s-one#1", "s-one#2", "s-one#3", "a-one#3"},
			{"a-two#1", "s-two#1", "s-two#2"},
		}},
		{false, [][]string{
			{"a-one#1", "a-one#2", "s-one#1", "s-one#2", "s-one#3"},
			{"a-two#1", "s-two#1", "s-two#2", "a-two#2"},
		}},
	} {
		pieces, err := Split(merged, rs, filepath.Join(dir, fmt.Sprint(tc.bySession)), tc.bySession)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for _, p := range pieces {
			var frames []string
			for _, f := range readFrames(t, p.Path) {
				var sid string
				json.Unmarshal(f["session_id"], &sid)
				frames = append(frames, sid+"#"+string(f["seq"]))
			}
			got = append(got, frames)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("bySession %v: pieces %v, want %v", tc.bySession, got, tc.want)
		}
	}
}
