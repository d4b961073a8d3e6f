package checker_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// frames builds a log from compact frame descriptions: each is
// "seq dir ms raw-or-text", ms being milliseconds after a fixed start.
func logOf(sid string, frames ...string) string {
	var b strings.Builder
	start := time.Date(2027, 7, 28, 12, 0, 0, 0, time.UTC) // after every revision the tests name
	for _, fr := range frames {
		parts := strings.SplitN(fr, " ", 4)
		var seq, ms int
		fmt.Sscan(parts[0], &seq)
		fmt.Sscan(parts[2], &ms)
		ts := `"ts":"` + start.Add(time.Duration(ms)*time.Millisecond).Format(time.RFC3339Nano) + `",`
		if parts[2] == "-" { // a frame without ts
			ts = ""
		}
		body := parts[3]
		field := `"raw":` + body
		if !strings.HasPrefix(body, "{") && !strings.HasPrefix(body, "[") {
			field = fmt.Sprintf(`"text":%q`, body)
		}
		fmt.Fprintf(&b, `{"session_id":%q,"server_label":"srv","seq":%d,%s"direction":%q,"transport":"stdio",%s}`+"\n",
			sid, seq, ts, parts[1], field)
	}
	return b.String()
}

func check(t *testing.T, cfg checker.Config, log string) *checker.Report {
	t.Helper()
	eng := checker.New(cfg)
	r := capture.NewReader(strings.NewReader(log), "test.jsonl")
	for {
		f, line, err := r.Next()
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
			t.Fatal(err)
		}
		eng.Ingest(&f, checker.Position{Path: "test.jsonl", Name: "test.jsonl", Line: line})
	}
	rep := eng.Report()
	checkParties(t, rep)
	return rep
}

// checkParties holds every report the tests make to the party invariants:
// each finding names one of the four parties, and a rule the catalogue
// gives one party blames that party.
func checkParties(t *testing.T, rep *checker.Report) {
	t.Helper()
	for _, f := range rep.Findings {
		switch f.Party {
		case checker.PartyServer, checker.PartyClient, checker.PartyTransport, checker.PartyRun:
		default:
			t.Errorf("%s finding %q has party %q", f.Signal, f.Text, f.Party)
		}
		for _, ref := range f.Rules {
			r, _ := checker.LookupRule(ref.ID)
			if r.Party != checker.PartySender && r.ID != "M1" && r.Party != f.Party {
				t.Errorf("%s finding of %s (%q) blames %s, the catalogue says %s", f.Signal, r.ID, f.Text, f.Party, r.Party)
			}
		}
	}
}

func messages(rep *checker.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, string(f.Level)+" "+f.RuleID+" "+f.Message)
	}
	return out
}

const (
	call1    = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`
	ok1      = `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
	allGates = "error,invalid,warn,mismatch,pending,late-result,drift,deprecated,incomplete,schema"
)

func TestSignals(t *testing.T) {
	all, _ := checker.ParseFailOn(allGates)
	tests := []struct {
		name     string
		log      string
		counters checker.Counters
		findings []string
	}{
		{
			name:     "clean call",
			log:      logOf("s", "1 c2s 0 "+call1, "2 s2c 50 "+ok1),
			findings: nil,
		},
		{
			name:     "json-rpc error and isError",
			log:      logOf("s", "1 c2s 0 "+call1, `2 s2c 5 {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, `3 c2s 6 {"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"x"}}`, `4 s2c 9 {"jsonrpc":"2.0","id":"b","result":{"isError":true}}`),
			counters: checker.Counters{Errors: 2},
			findings: []string{
				"error mcpsnoop/error session s line 2: tools/call echo (id 1) ended in an error: nope (code -32601)",
				`error mcpsnoop/error session s line 4: tools/call x (id "b") ended in an error: the result is marked isError`,
			},
		},
		{
			name:     "ids compare as written",
			log:      logOf("s", "1 c2s 0 "+call1, `2 s2c 5 {"jsonrpc":"2.0","id":"1","result":{}}`, `3 s2c 5 {"jsonrpc":"2.0","id":1.0,"result":{}}`, "4 s2c 6 "+ok1, "5 s2c 7 "+ok1),
			counters: checker.Counters{Warnings: 3},
			findings: []string{
				"error mcpsnoop/warn session s line 2: response id has no matching request",
				"error mcpsnoop/warn session s line 3: response id has no matching request",
				"error mcpsnoop/warn session s line 5: duplicate response for the same id",
			},
		},
		{
			name:     "unmatched error quotes the warning",
			log:      logOf("s", `1 s2c 0 {"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"x"}}`),
			counters: checker.Counters{Errors: 1, Warnings: 1},
			findings: []string{
				"error mcpsnoop/error session s line 1: error response could not be matched to a call: response id has no matching request",
				"error mcpsnoop/warn session s line 1: response id has no matching request",
			},
		},
		{
			name:     "several warnings on one frame count once, in table order",
			log:      logOf("s", `1 c2s 0 {"jsonrpc":"1.0","id":true,"method":"ping"}`, `2 s2c 1 {"jsonrpc":"2.0","id":true,"result":{},"error":{"code":1,"message":"m"}}`),
			counters: checker.Counters{Warnings: 2, Errors: 1},
			findings: []string{
				"error mcpsnoop/warn session s line 1: jsonrpc must be 2.0, request id has type boolean; MCP requires a string or integer id",
				"error mcpsnoop/error session s line 2: ping (id true) ended in an error: m (code 1)",
				"error mcpsnoop/warn session s line 2: response has both result and error",
			},
		},
		{
			name:     "invalid frames, stderr is fine",
			log:      logOf("s", "1 s2c 0 hello", `2 s2c 1 {"a":1}`, "3 stderr 2 log line", "4 c2s 3 [1,2]"),
			counters: checker.Counters{Invalid: 3},
			findings: []string{
				"error mcpsnoop/invalid session s line 1: frame on the protocol channel is not valid JSON-RPC",
				"error mcpsnoop/invalid session s line 2: frame on the protocol channel is not valid JSON-RPC",
				"error mcpsnoop/invalid session s line 4: frame on the protocol channel is not valid JSON-RPC",
			},
		},
		{
			name:     "pending, superseded and null ids",
			log:      logOf("s", "1 c2s 0 "+call1, "2 c2s 1 "+call1, `3 c2s 2 {"jsonrpc":"2.0","id":null,"method":"ping"}`, `4 s2c 3 {"jsonrpc":"2.0","id":null,"result":{}}`),
			counters: checker.Counters{Warnings: 3, Pending: 2},
			findings: []string{
				"error mcpsnoop/warn session s line 2: request reuses an id already in flight",
				"note mcpsnoop/pending session s line 2: tools/call echo (id 1) never got a response",
				"error mcpsnoop/warn session s line 3: request id is null; MCP requires a string or integer id",
				"note mcpsnoop/pending session s line 3: ping (id null) never got a response",
				"error mcpsnoop/warn session s line 4: result response id is null; it names no request, response id has no matching request",
			},
		},
		{
			name: "cancel: same direction only, late result then duplicate",
			log: logOf("s", "1 c2s 0 "+call1,
				`2 s2c 100 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
				`3 c2s 200 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
				`4 s2c 1450 {"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}`,
				"5 s2c 1500 "+ok1),
			counters: checker.Counters{Errors: 1, LateResults: 1, Warnings: 1},
			findings: []string{
				"error mcpsnoop/error session s line 4: tools/call echo (id 1) ended in an error: cancelled (code -32800)",
				"note mcpsnoop/late-result session s line 4: tools/call echo (id 1) was answered after it was cancelled: result arrived 1.25s after cancellation",
				"error mcpsnoop/warn session s line 5: duplicate response for the same id",
			},
		},
		{
			name: "server requests are answered by the client",
			log:  logOf("s", `1 s2c 0 {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`, `2 c2s 5 {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`),
		},
		{
			name: "tasks: failed via notification, completed isError via tasks/get, cancelled is no error",
			log: logOf("s",
				`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
				`2 s2c 1 {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","status":"working"}}`,
				`3 c2s 2 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`,
				`4 s2c 3 {"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"t2","status":"working"}}`,
				`5 c2s 4 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c"}}`,
				`6 s2c 5 {"jsonrpc":"2.0","id":3,"result":{"resultType":"task","taskId":"t3","status":"working"}}`,
				`7 s2c 6 {"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"failed","error":{"code":-5,"message":"boom"}}}`,
				`8 c2s 7 {"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t2"}}`,
				`9 s2c 8 {"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","taskId":"t2","status":"completed","result":{"isError":true}}}`,
				`10 s2c 9 {"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t3","status":"cancelled"}}`,
				`11 s2c 10 {"jsonrpc":"2.0","id":1,"result":{}}`),
			counters: checker.Counters{Errors: 2, Warnings: 1},
			findings: []string{
				"error mcpsnoop/error session s line 7: tools/call a (id 1) failed as task t1: boom (code -5)",
				"error mcpsnoop/error session s line 9: tools/call b (id 2) failed as task t2: the result is marked isError",
				"error mcpsnoop/warn session s line 11: duplicate response for the same id",
			},
		},
		{
			name: "a task-backed call ignores notifications/cancelled and stays pending",
			log: logOf("s", `1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
				`2 s2c 1 {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","status":"working"}}`,
				`3 c2s 2 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`),
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call a (id 1) never got a response"},
		},
		{
			name: "streams are never pending; cancelling one closes it gracefully",
			log: logOf("s", `1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`,
				`2 c2s 0 {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}`,
				`3 s2c 5 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
				`4 s2c 6 {"jsonrpc":"2.0","id":2,"result":{}}`),
		},
		{
			name: "truncated request absorbs one unmatched response",
			log: logOf("s", `1 c2s 0 {"jsonrpc":"2.0","id":5,"method":"x"}`, `2 s2c 1 {"jsonrpc":"2.0","id":5,"result":{}}`,
				`3 s2c 2 {"jsonrpc":"2.0","id":6,"result":{}}`) +
				`{"session_id":"s","seq":4,"direction":"c2s","transport":"stdio","text":"{\"jsonrpc\":","truncated":true}` + "\n" +
				logOf("s", `5 s2c 3 {"jsonrpc":"2.0","id":7,"result":{}}`, `6 s2c 3 {"jsonrpc":"2.0","id":8,"result":{}}`),
			counters: checker.Counters{Warnings: 2},
			findings: []string{
				"error mcpsnoop/warn session s line 3: response id has no matching request",
				"error mcpsnoop/warn session s line 6: response id has no matching request",
			},
		},
		{
			name:     "seq gaps and a torn tail are missing frames",
			log:      logOf("s", "3 c2s 0 "+call1, "2 s2c 1 "+ok1, "6 stderr 2 x") + `{"session_id":"s","seq":7,"ra`,
			counters: checker.Counters{MissingFrames: 5},
			findings: []string{"note mcpsnoop/incomplete session s has 5 dropped frames"},
		},
		{
			name: "withheld messages settle their calls and are not judged",
			log: `{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"id":1,"jsonrpc":"2.0","method":"tools/call"},"redacted":true,"redaction_skipped":true}` + "\n" +
				`{"session_id":"s","seq":2,"direction":"s2c","transport":"stdio","raw":{"id":1,"jsonrpc":"2.0","result":{}},"redacted":true,"redaction_skipped":true}` + "\n" +
				logOf("s", `3 c2s 2 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`) +
				`{"session_id":"s","seq":4,"direction":"s2c","transport":"stdio","raw":{"id":2,"jsonrpc":"2.0","result":{"isError":true}},"redacted":true,"redaction_skipped":true}` + "\n" +
				`{"session_id":"s","seq":5,"direction":"s2c","transport":"stdio","raw":{"method":"notifications/message"},"redacted":true,"redaction_skipped":true}` + "\n",
			counters: checker.Counters{Errors: 1},
			findings: []string{"error mcpsnoop/error session s line 4: tools/call echo (id 2) ended in an error: the result is marked isError"},
		},
		{
			name: "a closing frame's seq counts the frames lost at the end",
			log: logOf("s", "1 c2s 0 "+call1, "2 s2c 1 "+ok1) +
				`{"session_id":"s","seq":6,"direction":"meta","transport":"stdio","last_seq":5,"dropped":3}` + "\n",
			counters: checker.Counters{MissingFrames: 3},
			findings: []string{"note mcpsnoop/incomplete session s has 3 dropped frames"},
		},
		{
			name: "a closing frame counts what it reports, also when no gap shows it",
			log: logOf("s", "1 c2s 0 "+call1, "2 s2c 1 "+ok1) +
				`{"session_id":"s","seq":3,"direction":"meta","transport":"http","last_seq":2,"dropped":4}` + "\n",
			counters: checker.Counters{MissingFrames: 4},
			findings: []string{"note mcpsnoop/incomplete session s has 4 dropped frames"},
		},
		{
			name:     "http status frames",
			log:      `{"session_id":"s","seq":1,"direction":"s2c","transport":"http","status":202}` + "\n" + `{"session_id":"s","seq":2,"direction":"s2c","transport":"http","status":500}` + "\n" + `{"session_id":"s","seq":3,"direction":"s2c","transport":"http","status":502,"text":"<html>bad gateway</html>"}` + "\n",
			counters: checker.Counters{Errors: 2},
			findings: []string{
				"error mcpsnoop/error session s line 2: the transport failed with HTTP 500",
				"error mcpsnoop/error session s line 3: the transport failed with HTTP 502",
			},
		},
		{
			name:     "a request with an unknown direction can never be answered",
			log:      logOf("s", "1 sideways 0 "+call1, "2 s2c 1 "+ok1),
			counters: checker.Counters{Pending: 1, Warnings: 1},
			findings: []string{
				"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response",
				"error mcpsnoop/warn session s line 2: response id has no matching request",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, checker.Config{}, tt.log)
			if len(rep.Sessions) != 1 {
				t.Fatalf("sessions = %d", len(rep.Sessions))
			}
			if got := rep.Sessions[0].Counters; got != tt.counters {
				t.Errorf("counters = %+v\nwant       %+v", got, tt.counters)
			}
			got := messages(rep)
			if strings.Join(got, "\n") != strings.Join(tt.findings, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.findings, "\n"))
			}
			// Gating everything fails exactly when something was counted.
			repAll := check(t, checker.Config{FailOn: all}, tt.log)
			if (repAll.Verdict == checker.Failed) != (tt.counters != checker.Counters{}) {
				t.Errorf("verdict with every signal gated = %s", repAll.Verdict)
			}
		})
	}
}
