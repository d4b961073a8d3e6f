package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// files writes logs into a temporary folder and returns them as inputs.
func files(t *testing.T, logs map[string]string) []capture.Input {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for name := range logs {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []capture.Input
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(logs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, capture.Input{Path: p, Name: p})
	}
	return out
}

// frame is one envelope of session sid.
func frame(sid string, seq int, dir, raw string) string {
	return fmt.Sprintf(`{"session_id":%q,"server_label":"srv","seq":%d,"ts":"2026-01-01T00:00:%02d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n",
		sid, seq, seq%60, dir, raw)
}

// session is a log of n tools/call round trips of sid, from seq from; the
// last call gets an error, and one call is left without an answer.
func session(sid string, from, n int) string {
	var b strings.Builder
	seq := from
	for i := range n {
		id := fmt.Sprint(from + i)
		b.WriteString(frame(sid, seq, "c2s", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"t`+fmt.Sprint(i%3)+`","arguments":{}}}`))
		seq++
		switch {
		case i == n-1:
			b.WriteString(frame(sid, seq, "s2c", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32000,"message":"boom"}}`))
		case i == n/2:
			continue // never answered
		default:
			b.WriteString(frame(sid, seq, "s2c", `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`))
		}
		seq++
	}
	return b.String()
}

func reportOf(t *testing.T, eng *checker.Engine) string {
	t.Helper()
	data, err := json.MarshalIndent(eng.Report(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Reading in parallel gives the report reading in order gives, with any
// number of workers: logs of one session each, a session cut across
// files (read again together when workers split it), and copies.
func TestParallelIsSerial(t *testing.T) {
	a2 := session("a", 21, 10)
	logs := map[string]string{
		"1.jsonl":      session("a", 1, 10),
		"2.jsonl":      a2, // a goes on
		"3.jsonl":      session("b", 1, 30),
		"4.jsonl":      session("c", 1, 5) + session("d", 1, 5),
		"5.jsonl":      session("e", 1, 7),
		"6.jsonl":      session("d", 11, 3) + `{"session_id":"d","seq":`, // d goes on; a torn end
		"7.jsonl":      session("f", 1, 40),
		"copy/2.jsonl": a2, // read once
	}
	ins := files(t, logs)
	for _, cfg := range []checker.Config{{}, {Wire: true}, {MaxFindings: 3}} {
		want, err := Check(cfg, ins, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		wantRep := reportOf(t, want)
		for _, w := range []int{2, 3, 8} {
			for range 5 { // the workers deal files differently from run to run
				got, err := Check(cfg, ins, Options{Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				if rep := reportOf(t, got); rep != wantRep {
					t.Fatalf("%d workers, %+v: the report differs from reading in order", w, cfg)
				}
			}
		}
	}
}

// The first input in order that cannot be read is the error, as when the
// inputs are read in order, whichever worker meets it first.
func TestParallelFirstError(t *testing.T) {
	ins := files(t, map[string]string{
		"1.jsonl": session("a", 1, 3),
		"2.jsonl": session("b", 1, 50),
		"3.jsonl": "{not json\n",
		"4.jsonl": "also not json\n",
		"5.jsonl": session("c", 1, 3),
	})
	_, want := Check(checker.Config{}, ins, Options{Workers: 1})
	if want == nil || !strings.Contains(want.Error(), "3.jsonl") {
		t.Fatalf("reading in order: err = %v, want one naming 3.jsonl", want)
	}
	for range 10 {
		_, err := Check(checker.Config{}, ins, Options{Workers: 3})
		if err == nil || err.Error() != want.Error() {
			t.Fatalf("in parallel: err = %v, want %v", err, want)
		}
	}
}

// split finds the sessions two parts hold and plans reading their parts'
// inputs again, the inputs that share sessions together and in order.
func TestSplit(t *testing.T) {
	ins := files(t, map[string]string{
		"0.jsonl": session("a", 1, 2),
		"1.jsonl": session("b", 1, 2),
		"2.jsonl": session("a", 11, 2) + session("c", 1, 2),
		"3.jsonl": session("d", 1, 2),
		"4.jsonl": session("c", 11, 2),
		"5.jsonl": session("e", 1, 2),
	})
	deal := func(deal ...[]int) []*checker.Engine {
		var parts []*checker.Engine
		for _, inputs := range deal {
			p := checker.NewPart(checker.Config{}, 2)
			for _, n := range inputs {
				p.BeginInput(n)
				if err := read(p, ins[n], Options{}, nil, false); err != nil {
					t.Fatal(err)
				}
			}
			parts = append(parts, p)
		}
		return parts
	}
	if r := split(deal([]int{0, 2, 4}, []int{1, 3, 5}), len(ins)); r != nil {
		t.Fatalf("a, c in one part: split = %+v, want nil", r)
	}
	r := split(deal([]int{0, 3}, []int{1, 2}, []int{4}, []int{5}), len(ins))
	if r == nil {
		t.Fatal("a split between parts 0 and 1, c between 1 and 2: split = nil")
	}
	if want := map[int]bool{0: true, 1: true, 2: true}; !reflect.DeepEqual(r.parts, want) {
		t.Errorf("parts dropped %v, want %v", r.parts, want)
	}
	// 0, 2, 4 share a and c; 1 and 3 stand alone; 5's part is kept.
	if want := []job{{0, 2, 4}, {1}, {3}}; !reflect.DeepEqual(r.jobs, want) {
		t.Errorf("jobs %v, want %v", r.jobs, want)
	}
}

// The inputs' counters see every byte read: each file once, when nothing
// is read again.
func TestParallelCountsBytes(t *testing.T) {
	ins := files(t, map[string]string{
		"1.jsonl": session("a", 1, 20),
		"2.jsonl": session("b", 1, 20),
		"3.jsonl": session("c", 1, 20),
	})
	var total int64
	for _, in := range ins {
		info, err := os.Stat(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
	}
	for _, w := range []int{1, 3} {
		var n atomic.Int64
		counted := make([]capture.Input, len(ins))
		for i, in := range ins {
			in.Count = &n
			counted[i] = in
		}
		if _, err := Check(checker.Config{}, counted, Options{Workers: w}); err != nil {
			t.Fatal(err)
		}
		if n.Load() != total {
			t.Errorf("%d workers: read %d bytes, the files hold %d", w, n.Load(), total)
		}
	}
}

// Standard input is read once, in its place among the files: the inputs
// are read in order.
func TestStdinIsReadInOrder(t *testing.T) {
	ins := files(t, map[string]string{"1.jsonl": session("a", 1, 3), "3.jsonl": session("a", 21, 3)})
	stdin := session("b", 1, 3) + session("a", 11, 3)
	all := []capture.Input{ins[0], {Name: "stdin", Stdin: true}, ins[1]}
	serial, err := Check(checker.Config{}, all, Options{Workers: 1, Stdin: strings.NewReader(stdin)})
	if err != nil {
		t.Fatal(err)
	}
	par, err := Check(checker.Config{}, all, Options{Workers: 4, Stdin: bytes.NewReader([]byte(stdin))})
	if err != nil {
		t.Fatal(err)
	}
	if reportOf(t, serial) != reportOf(t, par) {
		t.Fatal("with standard input among the inputs, the report differs")
	}
}

// A second pass reads no more of an input than the first did: a log that a
// capture is still writing gives the part read again the frames the first
// pass saw, not the ones written since.
func TestReadAgainStopsWhereTheFirstPassDid(t *testing.T) {
	ins := files(t, map[string]string{"1.jsonl": session("a", 1, 4)})
	first := checker.NewPart(checker.Config{}, 1)
	first.BeginInput(0)
	var size int64
	if err := read(first, ins[0], Options{}, &size, false); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(ins[0].Path); info.Size() != size {
		t.Fatalf("the first pass noted %d bytes of %d", size, info.Size())
	}
	f, err := os.OpenFile(ins[0].Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(session("a", 100, 3) + session("late", 1, 2))
	f.Close()
	again := checker.NewPart(checker.Config{}, 1)
	again.BeginInput(0)
	if err := read(again, ins[0], Options{}, &size, true); err != nil {
		t.Fatal(err)
	}
	a, b := reportOf(t, mergeOne(t, first)), reportOf(t, mergeOne(t, again))
	if a != b {
		t.Errorf("the second pass read what was written after the first:\nfirst:  %.300s\nsecond: %.300s", a, b)
	}
}

// mergeOne turns a part into the engine Merge gives.
func mergeOne(t *testing.T, p *checker.Engine) *checker.Engine {
	t.Helper()
	eng, err := checker.Merge(checker.Config{}, []*checker.Engine{p})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
