package checker_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Parts merged give the report one engine gives, byte for byte, however
// the inputs are dealt to the parts (within the rule: the inputs a session
// spans go to one part, in order): over every fixture, every conformance
// case, logs cut into pieces (sessions across inputs), copies, torn lines,
// and the configurations that change what is kept or judged.
func TestMergeIsOneEngine(t *testing.T) {
	fixtures := readLogs(t, "../fixtures/*.jsonl", "../fixtures/*/*.jsonl")
	cases := readLogs(t, "../fixtures/conformance/*.jsonl")
	sets := map[string][]logInput{
		"fixtures":    fixtures,
		"conformance": cases,
		"pieces":      pieces(fixtures),
		"torn":        tornInputs(),
	}
	// The conformance cases, each cut in three: its one session spans them.
	for _, c := range cases {
		sets["case "+c.path] = cut(c, 3)
	}
	configs := map[string]checker.Config{
		"default":           {},
		"wire":              {Wire: true},
		"few findings kept": {MaxFindings: 5, FailOn: []checker.Signal{checker.SignalError}},
		"assertions": {
			ExpectTools: []string{"search", "files:read_file", "get_weather"}, ForbidTools: []string{"delete_file", "github:create_issue"},
			MaxDuration: time.Millisecond, MaxServerDuration: time.Millisecond, MaxRoundTrips: 1,
			FailOn: []checker.Signal{checker.SignalError, checker.SignalPending, checker.SignalIncomplete},
		},
		"known": {Fingerprints: true, Known: &checker.KnownFindings{}},
	}
	compared := 0
	for setName, ins := range sets {
		groups := sessionGroups(t, ins)
		for cfgName, cfg := range configs {
			if strings.HasPrefix(setName, "case ") && cfgName != "default" && cfgName != "wire" {
				continue // the cases' own flags are the command test's
			}
			want := oneEngine(t, cfg, ins)
			for dealName, deal := range deals(groups) {
				got := merged(t, cfg, ins, deal)
				if !bytes.Equal(got, want) {
					t.Errorf("%s, %s, %s: merged report differs from one engine's:\n%s", setName, cfgName, dealName, firstDiff(want, got))
				}
				compared++
			}
		}
	}
	// With the Sessions filter, an input can hold envelopes (of sessions
	// left out) before a torn line and its own first frame.
	ins := tornInputs()
	cfg := checker.Config{Sessions: map[string]bool{"x": true, "z": true}}
	want := oneEngine(t, cfg, ins)
	for dealName, deal := range deals(sessionGroups(t, ins)) {
		if got := merged(t, cfg, ins, deal); !bytes.Equal(got, want) {
			t.Errorf("torn, filtered, %s: merged report differs:\n%s", dealName, firstDiff(want, got))
		}
	}
	if compared < 100 {
		t.Fatalf("only %d comparisons made", compared)
	}
}

// The torn line before an input's first frame of a session the check
// keeps is the session's an earlier input read last: another part's.
func TestMergeTornLineGoesToEarlierInput(t *testing.T) {
	ins := tornInputs()
	cfg := checker.Config{Sessions: map[string]bool{"x": true, "z": true}}
	deal := [][]int{{1}, {0}} // the torn input is read by a part of its own, first
	var rep checker.Report
	if err := json.Unmarshal(merged(t, cfg, ins, deal), &rep); err != nil {
		t.Fatal(err)
	}
	missing := map[string]int{}
	for _, s := range rep.Sessions {
		missing[s.ID] = s.Counters.MissingFrames
	}
	if missing["x"] != 1 || missing["z"] != 1 {
		t.Fatalf("missing frames %v, want the torn line on x (read last before it) and the torn end on z", missing)
	}
}

func TestMergeRefusesSharedSessions(t *testing.T) {
	log := logOf("s", "1 c2s 0 "+toolCall("1", "a", ""))
	a, b := checker.NewPart(checker.Config{}, 2), checker.NewPart(checker.Config{}, 2)
	for i, p := range []*checker.Engine{a, b} {
		p.BeginInput(i)
		feed(t, p, logInput{fmt.Sprintf("%d.jsonl", i), []byte(log)})
	}
	if _, err := checker.Merge(checker.Config{}, []*checker.Engine{a, b}); err == nil || !strings.Contains(err.Error(), `session "s"`) {
		t.Fatalf("Merge of parts sharing a session: err = %v", err)
	}
	c := checker.NewPart(checker.Config{}, 2)
	c.BeginInput(0)
	if _, err := checker.Merge(checker.Config{}, []*checker.Engine{a, c}); err == nil || !strings.Contains(err.Error(), "input 0") {
		t.Fatalf("Merge of parts that both read input 0: err = %v", err)
	}
}

type logInput struct {
	path string
	data []byte
}

// readLogs reads the logs the globs name that a check can read.
func readLogs(t *testing.T, globs ...string) []logInput {
	t.Helper()
	var out []logInput
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		sort.Strings(paths)
		for _, p := range paths {
			if strings.Contains(p, "/golden/") {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			in := logInput{p, data}
			if capture.ReadLog(bytes.NewReader(data), p, func(*capture.Frame, int) bool { return true }, func() {}) == nil {
				out = append(out, in)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no logs in %v", globs)
	}
	return out
}

// cut splits a log at line ends into n inputs.
func cut(in logInput, n int) []logInput {
	lines := bytes.SplitAfter(in.data, []byte("\n"))
	var out []logInput
	per := (len(lines) + n - 1) / n
	for i := 0; i < len(lines); i += per {
		chunk := bytes.Join(lines[i:min(i+per, len(lines))], nil)
		if len(bytes.TrimSpace(chunk)) > 0 {
			out = append(out, logInput{fmt.Sprintf("%s.%d", in.path, len(out)), chunk})
		}
	}
	return out
}

// pieces is every fixture cut in three, a copy of the first one whole
// (its frames are read once), and a torn line ending one piece.
func pieces(fixtures []logInput) []logInput {
	var out []logInput
	for _, f := range fixtures {
		out = append(out, cut(f, 3)...)
	}
	out[1].data = append(append([]byte(nil), out[1].data...), `{"session_id":"torn","seq":`...)
	return append(out, logInput{"copy/" + fixtures[0].path, fixtures[0].data})
}

// tornInputs: x's input, then one that holds a frame of y, a torn line
// and frames of z, then a torn end.
func tornInputs() []logInput {
	x := logOf("x", "1 c2s 0 "+toolCall("1", "a", ""), "2 s2c 5 "+rpcResult("1", `{"content":[]}`))
	y := logOf("y", "1 c2s 0 "+toolCall("1", "b", ""))
	z := logOf("z", "1 c2s 10 "+toolCall("1", "c", ""), "2 s2c 20 "+rpcResult("1", `{"content":[]}`))
	mixed := y + `{"session_id":"z","seq":` + "\n" + z + `{"session_id":"z","se`
	return []logInput{{"x.jsonl", []byte(x)}, {"mixed.jsonl", []byte(mixed)}}
}

// sessionGroups groups the inputs that share a session (every envelope's
// session id), each group in input order, the groups by first input.
func sessionGroups(t *testing.T, ins []logInput) [][]int {
	t.Helper()
	root := make([]int, len(ins))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	first := map[string]int{}
	for i, in := range ins {
		err := capture.ReadLog(bytes.NewReader(in.data), in.path, func(f *capture.Frame, _ int) bool {
			if j, ok := first[f.SessionID]; ok {
				a, b := find(i), find(j)
				root[max(a, b)] = min(a, b)
			} else {
				first[f.SessionID] = i
			}
			return true
		}, func() {})
		if err != nil {
			t.Fatal(err)
		}
	}
	var groups [][]int
	at := map[int]int{}
	for i := range ins {
		r := find(i)
		g, ok := at[r]
		if !ok {
			g = len(groups)
			at[r] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// deals are ways of giving groups to parts: each part reads its groups in
// the order listed, each group's inputs in order.
func deals(groups [][]int) map[string][][]int {
	out := map[string][][]int{}
	var reversed []int
	for i := len(groups) - 1; i >= 0; i-- {
		reversed = append(reversed, groups[i]...)
	}
	out["one part, groups in reverse"] = [][]int{reversed}
	for _, k := range []int{2, 3} {
		parts := make([][]int, k)
		for i, g := range groups {
			parts[i%k] = append(parts[i%k], g...)
		}
		out[fmt.Sprintf("%d parts, round robin", k)] = parts
	}
	var each [][]int
	for i := len(groups) - 1; i >= 0; i-- {
		each = append(each, groups[i])
	}
	out["a part per group"] = each
	return out
}

func feed(t *testing.T, eng *checker.Engine, in logInput) {
	t.Helper()
	err := capture.ReadLog(bytes.NewReader(in.data), in.path, func(f *capture.Frame, line int) bool {
		return eng.Ingest(f, checker.Position{Path: in.path, Name: in.path, Line: line})
	}, eng.TornTail)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
}

func oneEngine(t *testing.T, cfg checker.Config, ins []logInput) []byte {
	t.Helper()
	eng := checker.New(cfg)
	for _, in := range ins {
		feed(t, eng, in)
	}
	return reportJSON(t, eng.Report())
}

func merged(t *testing.T, cfg checker.Config, ins []logInput, deal [][]int) []byte {
	t.Helper()
	var parts []*checker.Engine
	for _, inputs := range deal {
		if len(inputs) == 0 {
			continue
		}
		p := checker.NewPart(cfg, 2)
		for _, n := range inputs {
			p.BeginInput(n)
			feed(t, p, ins[n])
		}
		parts = append(parts, p)
	}
	eng, err := checker.Merge(cfg, parts)
	if err != nil {
		t.Fatal(err)
	}
	return reportJSON(t, eng.Report())
}

func reportJSON(t *testing.T, rep *checker.Report) []byte {
	t.Helper()
	data, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstDiff shows where two reports part.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(w), len(g))
}
