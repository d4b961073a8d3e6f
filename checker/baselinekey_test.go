package checker_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// labelled is logOf with another server label.
func labelled(label, log string) string {
	return strings.ReplaceAll(log, `"server_label":"srv"`, `"server_label":"`+label+`"`)
}

const (
	listReq  = `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
	listResp = `{"jsonrpc":"2.0","id":9,"result":{"tools":[` + toolA + `]}}`
	initReq  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
)

func initResp(name string) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"` + name + `","version":"1"}}}`
}

// The engine keys a session's baseline by its label, the server's
// serverInfo.name, the label the old rule gave its command, and its log.
func TestBaselineKey(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want checker.BaselineKey
	}{
		{"initialize names the server", logOf("s",
			"1 c2s 0 "+initReq, "2 s2c 1 "+initResp("weather-server"), "3 c2s 2 "+listReq, "4 s2c 3 "+listResp),
			checker.BaselineKey{Label: "srv", ServerName: "weather-server", Log: "test.jsonl"}},
		{"server/discover names the server", logOf("s",
			"1 c2s 0 "+`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`,
			"2 s2c 1 "+`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"disco","version":"1"}}}`,
			"3 c2s 2 "+listReq, "4 s2c 3 "+listResp),
			checker.BaselineKey{Label: "srv", ServerName: "disco", Log: "test.jsonl"}},
		{"a result's _meta names the server (2026-07-28)", logOf("s",
			"1 c2s 0 "+listReq,
			"2 s2c 1 "+`{"jsonrpc":"2.0","id":9,"result":{"tools":[`+toolA+`],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"meta-named","version":"1"}}}}`),
			checker.BaselineKey{Label: "srv", ServerName: "meta-named", Log: "test.jsonl"}},
		{"the first name given wins", logOf("s",
			"1 c2s 0 "+initReq, "2 s2c 1 "+initResp("first"),
			"3 c2s 2 "+listReq,
			"4 s2c 3 "+`{"jsonrpc":"2.0","id":9,"result":{"tools":[`+toolA+`],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"second"}}}}`),
			checker.BaselineKey{Label: "srv", ServerName: "first", Log: "test.jsonl"}},
		{"a client's answer names no server", logOf("s",
			"1 s2c 0 "+`{"jsonrpc":"2.0","id":"r1","method":"initialize"}`,
			"2 c2s 1 "+`{"jsonrpc":"2.0","id":"r1","result":{"serverInfo":{"name":"client-said"}}}`,
			"3 c2s 2 "+listReq, "4 s2c 3 "+listResp),
			checker.BaselineKey{Label: "srv", Log: "test.jsonl"}},
		{"a name that is not a string is none", logOf("s",
			"1 c2s 0 "+initReq, "2 s2c 1 "+`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":7}}}`, "3 c2s 2 "+listReq, "4 s2c 3 "+listResp),
			checker.BaselineKey{Label: "srv", Log: "test.jsonl"}},
		{"the meta frame's command gives the old label", labelled("weather", logOf("s",
			`1 meta 0 {"command":["node","build/index.js"],"cwd":"/home/u/weather"}`,
			"2 c2s 1 "+listReq, "3 s2c 2 "+listResp)),
			checker.BaselineKey{Label: "weather", OldLabel: "index.js", Log: "test.jsonl"}},
		{"an old label that is the label is none", labelled("server.py", logOf("s",
			`1 meta 0 {"command":["python3","server.py"]}`,
			"2 c2s 1 "+listReq, "3 s2c 2 "+listResp)),
			checker.BaselineKey{Label: "server.py", Log: "test.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &memStore{tools: map[string][]tooldef.Tool{}}
			check(t, checker.Config{Baseline: store}, tt.log)
			if len(store.keys) != 1 || !reflect.DeepEqual(store.keys[0], tt.want) {
				t.Errorf("keys %+v, want %+v", store.keys, tt.want)
			}
		})
	}
}

// A server that calls itself something else than its label's baseline says
// is drift, the server's, not a fresh baseline.
func TestRenamedServerIsDrift(t *testing.T) {
	log := logOf("s", "1 c2s 0 "+initReq, "2 s2c 1 "+initResp("new-name"), "3 c2s 2 "+listReq, "4 s2c 3 "+listResp)
	want := `session s: server name changed: the tool baseline of label "srv" was recorded for server "old-name", and this session's server gave "new-name"; its tools were not compared. If it is another server, give it a label of its own (--label); if the server renamed itself, trust it with mcpsnoop baseline --accept`
	for _, tt := range []struct {
		failOn  []checker.Signal
		level   checker.Level
		verdict checker.Verdict
	}{
		{nil, checker.LevelNote, checker.Passed},
		{[]checker.Signal{checker.SignalDrift}, checker.LevelError, checker.Failed},
	} {
		store := &memStore{tools: map[string][]tooldef.Tool{}, names: []string{"old-name"}}
		rep := check(t, checker.Config{FailOn: tt.failOn, Baseline: store}, log)
		s := rep.Sessions[0]
		if rep.Verdict != tt.verdict || s.Counters.Drift != 1 || s.Baseline.Created || len(s.Baseline.Drift) != 0 {
			t.Errorf("fail-on %v: verdict %s, drift %d, baseline %+v", tt.failOn, rep.Verdict, s.Counters.Drift, s.Baseline)
		}
		if len(rep.Findings) != 1 {
			t.Fatalf("findings %v", messages(rep))
		}
		f := rep.Findings[0]
		if f.Message != want || f.Level != tt.level || f.Party != checker.PartyServer || f.Signal != checker.SignalDrift || f.Line != 4 {
			t.Errorf("finding %+v\nwant %s", f, want)
		}
		if len(store.tools) != 0 {
			t.Errorf("something was recorded: %v", store.tools)
		}
	}
}

// A baseline held for this check only says so, and the report does not
// name a folder it is not in.
func TestHeldBaselineNote(t *testing.T) {
	log := logOf("s", "1 c2s 0 "+listReq, "2 s2c 1 "+listResp)
	for _, failOn := range [][]checker.Signal{nil, {checker.SignalDrift}} {
		rep := check(t, checker.Config{FailOn: failOn, Baseline: &memStore{tools: map[string][]tooldef.Tool{}, held: true}}, log)
		b := rep.Sessions[0].Baseline
		if !b.Created || b.Dir != "" || b.RecordedOnly != (failOn != nil) {
			t.Errorf("fail-on %v: baseline %+v", failOn, b)
		}
		got := strings.Join(messages(rep), "\n")
		if !strings.Contains(got, "session s: first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)") {
			t.Errorf("fail-on %v: findings\n%s", failOn, got)
		}
	}
	rep := check(t, checker.Config{Baseline: &memStore{tools: map[string][]tooldef.Tool{}}}, log)
	if b := rep.Sessions[0].Baseline; b.Dir != "/baselines" || !strings.Contains(messages(rep)[0], "recorded first-seen tool baseline (trusted, not verified)") {
		t.Errorf("a written baseline: %+v %v", b, messages(rep))
	}
}
