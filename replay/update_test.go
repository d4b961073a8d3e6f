package replay

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seqsGapless fails the test unless the frames of a log are numbered 1, 2,
// 3, ... in order (a gap reads as lost frames).
func seqsGapless(t *testing.T, path string) {
	t.Helper()
	for i, f := range framesOf(t, path) {
		if f.Seq != uint64(i+1) {
			t.Fatalf("frame %d has seq %d", i+1, f.Seq)
		}
	}
}

// Update accepts a replay against the changed build the way a VCR
// re-records: every recorded request stays as the client sent it, the
// answers of the replayed calls (and of initialize) are the new build's,
// timed as the replay timed them, the call not replayed keeps its recorded
// frames, and the call to the tool the build no longer offers goes. The
// updated recording then verifies against the new build.
func TestUpdateMergesTheReplay(t *testing.T) {
	t.Log("records with the SDK through the shim, replays against a changed build, updates the recording")
	_, v1, v2 := programs(t)
	path := record(t, v1, "2025-11-25", everyTool)
	rec := load(t, path)
	var kept []capture.Frame // delete_item's request and answer
	for _, f := range framesOf(t, path) {
		if bytes.Contains(f.Raw, []byte(`"name":"delete_item","arguments"`)) || bytes.Contains(f.Raw, []byte("deleted k1")) {
			kept = append(kept, f)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("delete_item's request and answer: %+v", kept)
	}

	res, v := replay(t, rec, []string{v2}, Options{})
	if !v.Regressed() {
		t.Fatal("the changed build did not regress")
	}
	up, err := Update(rec, res)
	if err != nil {
		t.Fatal(err)
	}
	// initialize, tools/list, echo, add, slow, flaky, stamp.
	if up.Answers != 7 || up.Kept != 1 || len(up.Dropped) != 1 || !strings.Contains(up.Dropped[0], `tools/call "lookup" at line `) || up.Redacted {
		t.Errorf("updated %+v", up)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Its frames are as recorded, moved in time with the rest of the
	// timeline but as far apart as they were.
	var moved []capture.Frame
	for _, f := range framesOf(t, path) {
		for _, k := range kept {
			if bytes.Equal(f.Raw, k.Raw) && f.Direction == k.Direction {
				moved = append(moved, f)
			}
		}
	}
	if len(moved) != 2 || moved[1].TS.Sub(moved[0].TS) != kept[1].TS.Sub(kept[0].TS) {
		t.Errorf("the call not replayed is not as recorded: %+v", moved)
	}
	// The timeline stays in order: slow's answer now comes a second
	// later, and the client's next request after it.
	frames := framesOf(t, path)
	for i, f := range frames {
		if f.Direction == "s2c" && bytes.Contains(f.Raw, []byte(`"text":"done"`)) {
			for _, next := range frames[i+1:] {
				if next.Direction == "c2s" {
					if !next.TS.After(f.TS) {
						t.Errorf("the request after slow's answer (%s) is not after it (%s)", next.TS, f.TS)
					}
					break
				}
			}
		}
	}
	for _, gone := range []string{`"lookup"`, "value of k1"} {
		if strings.Contains(string(after), gone) {
			t.Errorf("the call to the removed tool is still there (%s)", gone)
		}
	}
	seqsGapless(t, path)

	got := load(t, path)
	if got.SessionID != rec.SessionID || !bytes.Equal(got.Init.Params, rec.Init.Params) || len(got.Steps) != len(rec.Steps)-1 {
		t.Fatalf("session %s, %d steps (was %d)", got.SessionID, len(got.Steps), len(rec.Steps))
	}
	if !strings.Contains(string(got.Init.Answer.Message), `"version":"v2"`) {
		t.Errorf("initialize answer: %s", got.Init.Answer.Message)
	}
	if _, ok := got.Tool("find"); !ok || got.report == nil || !got.report.Listing.Complete {
		t.Error("the recorded listing is not the new build's")
	}
	for _, r := range got.Steps {
		if r.Answer == nil {
			t.Errorf("%s lost its answer", describe(r))
			continue
		}
		if bytes.Contains(r.Answer.Message, []byte(`"id":`)) && !bytes.Contains(r.Answer.Message, append(append([]byte(`"id":`), r.ID...), ',')) {
			t.Errorf("%s: answer %s is not addressed to id %s", describe(r), r.Answer.Message, r.ID)
		}
		switch r.Name {
		case "add":
			if !bytes.Contains(r.Answer.Message, []byte(`2+3=6`)) {
				t.Errorf("add: %s", r.Answer.Message)
			}
		case "slow":
			// The new build sleeps a second: a lower bound, whatever the
			// machine.
			if d := r.Answer.TS.Sub(r.TS); d < testserver.SlowV2 {
				t.Errorf("slow's recorded duration is %s, the replay's was over %s", d, testserver.SlowV2)
			}
		}
	}

	_, v = replayJudged(t, got, []string{v2}, Options{}, untimed)
	if v.Regressed() || v.Count(OutcomeSame) != 6 || v.Count(OutcomeNotReplayed) != 1 {
		var b bytes.Buffer
		_ = v.WriteText(&b)
		t.Errorf("the updated recording against the new build:\n%s", b.String())
	}
}

// An MRTR call keeps its recorded rounds; its final answer is the new
// build's.
func TestUpdateMRTR(t *testing.T) {
	_, v1, _ := programs(t)
	path := record(t, v1, "", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		call(ctx, t, cs, "book", map[string]any{"text": "JFK"})
	})
	rec := load(t, path)
	res, _ := replay(t, rec, nil, Options{})
	if _, err := Update(rec, res); err != nil {
		t.Fatal(err)
	}
	seqsGapless(t, path)
	got := load(t, path)
	var book *Request
	for _, r := range got.Steps {
		if r.Name == "book" {
			book = r
		}
	}
	if book == nil || len(book.Rounds) != 2 || book.Answer == nil || !bytes.Contains(book.Answer.Message, []byte("booked JFK seat=accept:window")) {
		t.Fatalf("book after the update: %+v", book)
	}
	if !book.Answer.TS.After(book.lastTS) {
		t.Errorf("the final answer (%s) is not after the last retry (%s)", book.Answer.TS, book.lastTS)
	}
	_, v := replay(t, got, nil, Options{})
	if v.Regressed() || v.Count(OutcomeSame) != 3 {
		t.Errorf("verdicts %+v", v.Calls)
	}
}

// A replay that does not say what the new build answers is refused, and
// the recording is left byte for byte: one that stopped (the server
// exited mid-call), one where a call timed out.
func TestUpdateRefusesAnIncompleteReplay(t *testing.T) {
	_, v1, v2 := programs(t)
	path := record(t, v1, "2025-11-25", everyTool)
	rec := load(t, path)
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// v2's slow takes four times the call timeout; on a busy machine
	// another call may time out too, and is counted with it.
	res, _ := replay(t, rec, []string{v2}, Options{CallTimeout: testserver.SlowV2 / 4})
	timedOut, slowTimedOut := 0, false
	for _, o := range res.Outcomes {
		if o.TimedOut {
			timedOut++
			slowTimedOut = slowTimedOut || o.Request.Name == "slow"
		}
	}
	err = CheckUpdate(rec, res)
	if !slowTimedOut || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d replayed call(s) got no usable answer (", timedOut)) ||
		!strings.Contains(err.Error(), " timed out") {
		t.Errorf("after a timeout (slow timed out: %v): %v", slowTimedOut, err)
	}
	if _, err := Update(rec, res); err == nil {
		t.Error("Update accepted a replay with a call that timed out")
	}

	t.Setenv("REPLAYSERVER_EXIT_ON", "add")
	res, _ = replay(t, rec, nil, Options{CallTimeout: time.Hour})
	if _, err := Update(rec, res); err == nil || !strings.Contains(err.Error(), "the replay stopped (the server closed its stdout") {
		t.Errorf("after a crash: %v", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, recorded) {
		t.Error("a refused update changed the recording")
	}
}

// An HTTP recording (event-stream answers, a server request on the
// stream) updates too: the answers keep the recorded connection and
// carry the replay's status and content type, and the updated recording
// replays the same.
func TestUpdateHTTP(t *testing.T) {
	l := newLoopback(t, sdkHandler(false, false))
	path := recordHTTP(t, l.url(), "2025-11-25", nil, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		weatherCalls(ctx, t, cs)
		call(ctx, t, cs, "ask", map[string]any{"text": "Seat?"})
	})
	rec := load(t, path)
	res := replayHTTP(t, rec, l.url(), nil, Options{})
	up, err := Update(rec, res)
	if err != nil {
		t.Fatal(err)
	}
	if up.Answers != 5 || up.Kept != 0 || len(up.Dropped) != 0 { // initialize, tools/list, weather, echo, ask
		t.Errorf("updated %+v", up)
	}
	seqsGapless(t, path)
	got := load(t, path)
	for _, r := range got.Steps {
		if r.Notification() {
			continue
		}
		if r.Answer == nil || r.Answer.Status != http.StatusOK {
			t.Errorf("%s: answer %+v", describe(r), r.Answer)
		}
	}
	for _, f := range framesOf(t, path) {
		if f.Direction == "s2c" && len(f.Raw) > 0 && f.ConnID == "" {
			t.Errorf("an answer without the recorded connection: %+v", f)
		}
	}
	res = replayHTTP(t, got, l.url(), nil, Options{})
	v, err := Verify(got, res, untimed)
	if err != nil {
		t.Fatal(err)
	}
	if v.Regressed() || v.Count(OutcomeSame) != 4 || len(res.Declined) > 0 {
		t.Errorf("the updated recording replays as %+v (declined %v)", v.Calls, res.Declined)
	}
}

// A pipelined recording (the client sent three calls before any answer
// came) updates into a timeline a capture could have written, although
// the replay sent the calls one at a time and answered each in
// milliseconds where the recording took half a second: no frame is timed
// before the one logged before it, and no call takes less than nothing.
func TestUpdatePipelined(t *testing.T) {
	_, v1, _ := programs(t)
	t.Setenv("REPLAYSERVER_PIPELINE", "3")  // no answer before all three calls are in
	t.Setenv("REPLAYSERVER_DELAY", "500ms") // and then half a second later
	path := record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, text := range []string{"a", "b", "c"} {
			wg.Go(func() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	})
	rec := load(t, path)
	recorded := framesOf(t, path)
	for i, f := range recorded {
		if f.Direction == "s2c" && bytes.Contains(f.Raw, []byte(`"type":"text"`)) {
			for _, g := range recorded[i:] {
				if g.Direction == "c2s" && bytes.Contains(g.Raw, []byte(`"echo"`)) {
					t.Fatalf("the recording is not pipelined: a call follows the first answer")
				}
			}
			break
		}
	}

	t.Setenv("REPLAYSERVER_PIPELINE", "")
	t.Setenv("REPLAYSERVER_DELAY", "")
	res, _ := replay(t, rec, nil, Options{})
	if _, err := Update(rec, res); err != nil {
		t.Fatal(err)
	}
	seqsGapless(t, path)
	frames := framesOf(t, path)
	for i := 1; i < len(frames); i++ {
		if frames[i].TS.Before(frames[i-1].TS) {
			t.Errorf("frame %d (%s) is timed before frame %d (%s)", i+1, frames[i].TS, i, frames[i-1].TS)
		}
	}
	got := load(t, path)
	calls := 0
	for _, c := range got.calls {
		calls++
		if !c.HasDuration || c.Duration < 0 {
			t.Errorf("%s %s: duration %s", c.Method, c.Name, c.Duration)
		}
	}
	if calls != 5 { // initialize, tools/list, three echoes
		t.Errorf("%d calls in the updated recording", calls)
	}
	for _, r := range got.Steps {
		if r.Answer == nil {
			t.Errorf("%s has no answer", describe(r))
		} else if r.Answer.TS.Before(r.TS) {
			t.Errorf("%s: answered at %s, sent at %s", describe(r), r.Answer.TS, r.TS)
		}
	}
}
