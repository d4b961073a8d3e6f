package ingest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A log holding a line the reader refuses (a frame whose raw nests 10,000
// deep, as captures once wrote) is checked all the same, in order and in
// parallel alike: the line is one invalid frame of its session, the
// transport's, and every other log of the folder is read.
func TestUnreadableLineIsInvalidNotFatal(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":99,"result":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`
	bad := session("bad-1-aaaaaaaaaaaa", 1, 4)
	lines := strings.SplitAfter(bad, "\n")
	bad = strings.Join(lines[:3], "") + frame("bad-1-aaaaaaaaaaaa", 40, "s2c", deep) + strings.Join(lines[3:], "")
	inputs := files(t, map[string]string{
		"a.jsonl": session("a-1-aaaaaaaaaaaa", 1, 5),
		"b.jsonl": bad,
		"c.jsonl": session("c-1-aaaaaaaaaaaa", 1, 5),
	})
	var reports []string
	for _, workers := range []int{1, 3} {
		eng, err := Check(checker.Config{}, inputs, Options{Workers: workers})
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		rep := eng.Report()
		if len(rep.Sessions) != 3 {
			t.Fatalf("workers %d: %d sessions", workers, len(rep.Sessions))
		}
		var found []string
		for _, f := range rep.Findings {
			if f.Signal == checker.SignalInvalid {
				found = append(found, f.SessionID+" "+string(f.Party)+" "+f.Path[strings.LastIndexByte(f.Path, '/')+1:]+":"+strconv.Itoa(f.Line)+" "+f.Text)
			}
		}
		if len(found) != 1 || !strings.HasPrefix(found[0], "bad-1-aaaaaaaaaaaa transport b.jsonl:4 session bad-1-aaaaaaaaaaaa: a log line could not be read and was skipped: ") || !strings.Contains(found[0], "exceeded max depth") {
			t.Errorf("workers %d: invalid findings %q", workers, found)
		}
		if n := rep.Sessions[1].Counters.Invalid; n != 1 {
			t.Errorf("workers %d: %d invalid", workers, n)
		}
		reports = append(reports, reportOf(t, mustCheck(t, inputs, workers)))
	}
	if reports[0] != reports[1] {
		t.Errorf("the parallel report differs from the serial one")
	}
}

func mustCheck(t *testing.T, inputs []capture.Input, workers int) *checker.Engine {
	t.Helper()
	eng, err := Check(checker.Config{}, inputs, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
