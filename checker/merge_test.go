package checker_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// input is one log of checkInputs, under a path of its own.
type input struct{ path, log string }

// checkInputs feeds the logs to one engine in order, each as its own input.
func checkInputs(t *testing.T, cfg checker.Config, inputs ...input) *checker.Report {
	t.Helper()
	eng := checker.New(cfg)
	for _, in := range inputs {
		err := capture.ReadLog(strings.NewReader(in.log), in.path, func(f *capture.Frame, line int) bool {
			return eng.Ingest(f, checker.Position{Path: in.path, Name: in.path, Line: line})
		}, eng.TornTail)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
	}
	return eng.Report()
}

func counters(rep *checker.Report) string {
	var out []string
	for _, s := range rep.Sessions {
		c := s.Counters
		out = append(out, s.ID+" errors="+itoa(c.Errors)+" warnings="+itoa(c.Warnings)+" pending="+itoa(c.Pending)+
			" missing="+itoa(c.MissingFrames)+" calls="+itoa(s.Calls)+" frames="+itoa(s.Traffic.Frames))
	}
	return strings.Join(out, "; ")
}

// A session held by two inputs is read once: a frame whose seq another
// input already gave is a copy. Within one input every frame counts, and
// frames without a seq always do.
func TestSessionInTwoInputs(t *testing.T) {
	failed := logOf("s", "1 c2s 0 "+toolCall("1", "a", ""), "2 s2c 10 "+rpcError("1", -32000, "boom"))
	longer := failed + logOf("s", "3 c2s 20 "+toolCall("2", "b", ""), "4 s2c 30 "+rpcResult("2", `{"content":[]}`))
	noSeq := strings.ReplaceAll(failed, `"seq":1,`, `"seq":0,`)
	noSeq = strings.ReplaceAll(noSeq, `"seq":2,`, `"seq":0,`)
	tests := []struct {
		name   string
		inputs []input
		want   string
	}{
		{"one input", []input{{"a.jsonl", failed}},
			"s errors=1 warnings=0 pending=0 missing=0 calls=1 frames=2"},
		{"the same log in two files", []input{{"a.jsonl", failed}, {"copy/a.jsonl", failed}},
			"s errors=1 warnings=0 pending=0 missing=0 calls=1 frames=2"},
		{"a copy that goes on: its new frames count", []input{{"a.jsonl", failed}, {"later.jsonl", longer}},
			"s errors=1 warnings=0 pending=0 missing=0 calls=2 frames=4"},
		{"the longer one first", []input{{"later.jsonl", longer}, {"a.jsonl", failed}},
			"s errors=1 warnings=0 pending=0 missing=0 calls=2 frames=4"},
		{"a repeat within one input counts (W25, as written)", []input{{"a.jsonl", failed + logOf("s", "2 s2c 11 "+rpcError("1", -32000, "boom"))}},
			"s errors=1 warnings=1 pending=0 missing=0 calls=1 frames=3"},
		{"frames without a seq are never merged", []input{{"a.jsonl", noSeq}, {"b.jsonl", noSeq}},
			"s errors=2 warnings=0 pending=0 missing=0 calls=2 frames=4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := checkInputs(t, checker.Config{}, tt.inputs...)
			if got := counters(rep); got != tt.want {
				t.Errorf("counters\n got %s\nwant %s", got, tt.want)
			}
			if tt.inputs[0].path == "a.jsonl" {
				if f := rep.Findings; len(f) == 0 || f[0].Path != "a.jsonl" {
					t.Errorf("findings %+v should point at the first input", f)
				}
			}
		})
	}
}

// The fixtures' runs checked with a copy of one of their logs: the same
// counters as the run alone.
func TestFixtureRunWithACopy(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "run-untraced", "*.jsonl"))
	var alone, twice []input
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, input{p, string(data)})
	}
	twice = append(append(twice, alone...), input{"artifacts/copy.jsonl", alone[1].log})
	a, b := checkInputs(t, checker.Config{}, alone...), checkInputs(t, checker.Config{}, twice...)
	if counters(a) != counters(b) || len(a.Findings) != len(b.Findings) {
		t.Errorf("alone %s\nwith a copy %s", counters(a), counters(b))
	}
}

// Seqs out of order, gaps, and a second input filling a gap.
func TestSeqSetOrder(t *testing.T) {
	frame := func(seq int) string {
		return logOf("s", itoa(seq)+" s2c "+itoa(seq)+" "+`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	}
	var first, second strings.Builder
	for _, seq := range []int{5, 1, 2, 9, 3, 7} {
		first.WriteString(frame(seq))
	}
	for _, seq := range []int{1, 4, 5, 6, 7, 8, 9, 10} {
		second.WriteString(frame(seq))
	}
	rep := checkInputs(t, checker.Config{}, input{"a.jsonl", first.String()}, input{"b.jsonl", second.String()})
	// a gives 1 2 3 5 7 9; b adds 4 6 8 10.
	if n := rep.Sessions[0].Traffic.Frames; n != 10 {
		t.Errorf("%d frames, want 10", n)
	}
}
