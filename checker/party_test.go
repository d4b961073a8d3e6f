package checker_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// pf is one frame of a party scenario: its direction and the envelope's
// other members (raw, status, headers), JSON without braces.
type pf struct{ dir, members string }

func c2s(raw string) pf { return pf{"c2s", `"raw":` + raw} }
func s2c(raw string) pf { return pf{"s2c", `"raw":` + raw} }

// partyLog numbers the frames from seq 1 in session "s", on transport.
func partyLog(transport string, frames ...pf) string {
	var b strings.Builder
	for i, f := range frames {
		fmt.Fprintf(&b, `{"session_id":"s","server_label":"srv","seq":%d,"ts":"2026-07-28T12:00:00.%03dZ","direction":%q,"transport":%q,%s}`+"\n",
			i+1, i+1, f.dir, transport, f.members)
	}
	return b.String()
}

// partyLines lists a report's findings as "signal party text".
func partyLines(rep *checker.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, string(f.Signal)+" "+string(f.Party)+" "+f.Text)
	}
	return out
}

const (
	init25   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	inited25 = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
)

func TestFindingParties(t *testing.T) {
	gates, _ := checker.ParseFailOn("error,invalid,warn,mismatch,pending,late-result,deprecated,incomplete")
	nameless := rpcRequest("1", "tools/call", `{"arguments":{}}`)
	tests := []struct {
		name      string
		transport string
		frames    []pf
		want      []string
	}{
		{
			name:   "a server refusing a request that breaks the schema is right: the client is at fault",
			frames: []pf{c2s(init25), s2c(inited25), c2s(nameless), s2c(rpcError("1", -32602, "name is required"))},
			want:   []string{"error client tools/call (id 1) ended in an error: name is required (code -32602)"},
		},
		{
			name:   "a server refusing a valid request is at fault",
			frames: []pf{c2s(init25), s2c(inited25), c2s(toolCall("1", "echo", "")), s2c(rpcError("1", -32602, "nope"))},
			want:   []string{"error server tools/call echo (id 1) ended in an error: nope (code -32602)"},
		},
		{
			name:   "any other code answering a malformed request is the server's",
			frames: []pf{c2s(init25), s2c(inited25), c2s(nameless), s2c(rpcError("1", -32603, "crash"))},
			want:   []string{"error server tools/call (id 1) ended in an error: crash (code -32603)"},
		},
		{
			name: "a refusal of a request that broke a warn rule is the client's",
			frames: []pf{c2s(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`),
				s2c(rpcError("1.5", -32600, "bad id"))},
			want: []string{
				"warn client request id 1.5 is not an integer; MCP requires a string or integer id",
				"error client tools/call echo (id 1.5) ended in an error: bad id (code -32600)",
			},
		},
		{
			name: "refusing a tool the listing does not offer is right, as an error or an isError result",
			frames: []pf{c2s(rpcRequest("1", "tools/list", `{}`)), s2c(rpcResult("1", `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)),
				c2s(toolCall("2", "radar", "")), s2c(rpcError("2", -32602, "unknown tool")),
				c2s(toolCall("3", "missing", "")), s2c(rpcResult("3", `{"isError":true,"content":[{"type":"text","text":"Tool missing not found"}]}`)),
				c2s(toolCall("4", "echo", "")), s2c(rpcResult("4", `{"isError":true,"content":[{"type":"text","text":"echo failed"}]}`))},
			want: []string{
				"error client tools/call radar (id 2) ended in an error: unknown tool (code -32602)",
				"error client tools/call missing (id 3) ended in an error: the result is marked isError: Tool missing not found",
				"error server tools/call echo (id 4) ended in an error: the result is marked isError: echo failed",
			},
		},
		{
			name:   "a tool's isError result is the server's",
			frames: []pf{c2s(toolCall("1", "echo", "")), s2c(rpcResult("1", `{"isError":true,"content":[{"type":"text","text":"boom"}]}`))},
			want:   []string{"error server tools/call echo (id 1) ended in an error: the result is marked isError: boom"},
		},
		{
			name: "a client's error answer to the server's request is the client's",
			frames: []pf{c2s(toolCall("1", "echo", "")),
				s2c(rpcRequest(`"e1"`, "roots/list", `{}`)), c2s(rpcError(`"e1"`, -32603, "no roots")),
				s2c(rpcResult("1", `{"content":[]}`))},
			want: []string{
				"deprecated server roots is deprecated (2026-07-28); use tool parameters, resource URIs, or server configuration instead",
				`error client roots/list (id "e1") ended in an error: no roots (code -32603)`,
			},
		},
		{
			name:   "an unanswered client request is the server's, an unanswered server request the client's",
			frames: []pf{c2s(toolCall("1", "echo", "")), s2c(rpcRequest(`"r"`, "roots/list", `{}`))},
			want: []string{
				"pending server tools/call echo (id 1) never got a response",
				"deprecated server roots is deprecated (2026-07-28); use tool parameters, resource URIs, or server configuration instead",
				`pending client roots/list (id "r") never got a response`,
			},
		},
		{
			name:   "stray output is its sender's",
			frames: []pf{s2c(`"hello"`), c2s(`[1]`)},
			want: []string{
				"invalid server frame on the protocol channel is not valid JSON-RPC",
				"invalid client frame on the protocol channel is not valid JSON-RPC",
			},
		},
		{
			name:   "warn rules blame the frame's sender",
			frames: []pf{c2s(`{"id":1,"method":"ping"}`), s2c(`{"id":1,"result":{}}`)},
			want:   []string{"warn client missing jsonrpc=2.0", "warn server missing jsonrpc=2.0"},
		},
		{
			name:   "an id-less parse error is the answer JSON-RPC prescribes: the client's",
			frames: []pf{{"c2s", `"text":"{\"jsonrpc\":\"2.0\",\"id\":1,"`}, s2c(rpcError("null", -32700, "parse error"))},
			want: []string{
				"invalid client frame on the protocol channel is not valid JSON-RPC",
				"error client error response could not be matched to a call: response id has no matching request",
				"warn server response id has no matching request",
			},
		},
		{
			name:   "a result after cancellation is the late side's",
			frames: []pf{c2s(toolCall("1", "echo", "")), c2s(cancelNote("1")), s2c(rpcResult("1", `{"content":[]}`))},
			want:   []string{"late-result server tools/call echo (id 1) was answered after it was cancelled: result arrived 1ms after cancellation"},
		},
		{
			name:      "a gateway's 502 is the transport's",
			transport: "http",
			frames:    []pf{c2s(toolCall("1", "echo", "")), {"s2c", `"status":502,"reply_to":1`}},
			want:      []string{"error transport the transport failed with HTTP 502"},
		},
		{
			name:      "a 500 without a body is the server's",
			transport: "http",
			frames:    []pf{c2s(toolCall("1", "echo", "")), {"s2c", `"status":500,"reply_to":1`}},
			want:      []string{"error server the transport failed with HTTP 500"},
		},
		{
			name:      "a 400 refusing a request that broke a rule is the client's",
			transport: "http",
			frames: []pf{{"c2s", `"raw":{"jsonrpc":"1.0","id":1,"method":"ping"}`},
				{"s2c", `"status":400,"reply_to":1`}},
			want: []string{"warn client jsonrpc must be 2.0", "error client the transport failed with HTTP 400"},
		},
		{
			name:      "-32020 to a request whose headers disagree is the client's",
			transport: "http",
			frames: []pf{{"c2s", `"raw":` + hxCall("1", "echo", `{}`) + `,` + hxHeaders("tools/call", "other")},
				{"s2c", `"raw":` + rpcError("1", -32020, "header mismatch") + `,"status":400`}},
			want: []string{
				`warn client routing header Mcp-Name "other" disagrees with body name "echo"`,
				`mismatch client routing header mismatch: routing header Mcp-Name "other" disagrees with body name "echo"`,
				"error client tools/call echo (id 1) ended in an error: header mismatch (code -32020)",
				"mismatch client a routing header disagrees with the body (the server answered -32020, HeaderMismatch)",
			},
		},
		{
			name:      "-32020 to a request whose recorded headers agree is the server's",
			transport: "http",
			frames: []pf{{"c2s", `"raw":` + hxCall("1", "echo", `{}`) + `,` + hxHeaders("tools/call", "echo")},
				{"s2c", `"raw":` + rpcError("1", -32020, "header mismatch") + `,"status":400`}},
			want: []string{
				"error server tools/call echo (id 1) ended in an error: header mismatch (code -32020)",
				"mismatch server the server answered -32020 (HeaderMismatch), yet the request's routing headers, as recorded, agree with its body",
			},
		},
		{
			name:   "lost frames are the transport's",
			frames: []pf{c2s(toolCall("1", "echo", "")), {"s2c", `"seq":9,"raw":` + rpcResult("1", `{"content":[]}`)}},
			want:   []string{"incomplete transport session s has 7 dropped frames"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			transport := tc.transport
			if transport == "" {
				transport = "stdio"
			}
			log := partyLog(transport, tc.frames...)
			sameLines(t, "findings", partyLines(check(t, checker.Config{FailOn: gates}, log)), tc.want)
		})
	}
}

// TestBlameGates: --blame gates on the findings of the parties it names;
// the others stay in the report as notes, and the counters stay exact.
func TestBlameGates(t *testing.T) {
	log := partyLog("stdio", c2s(init25), s2c(inited25),
		c2s(rpcRequest("1", "tools/call", `{"arguments":{}}`)), s2c(rpcError("1", -32602, "name is required")))
	tests := []struct {
		blame  string
		failed []checker.Signal
		level  checker.Level
	}{
		{"all", []checker.Signal{checker.SignalError}, checker.LevelError},
		{"server", nil, checker.LevelNote},
		{"client", []checker.Signal{checker.SignalError}, checker.LevelError},
		{"server,transport", nil, checker.LevelNote},
		{" client , server ", []checker.Signal{checker.SignalError}, checker.LevelError},
	}
	for _, tc := range tests {
		t.Run(tc.blame, func(t *testing.T) {
			blame, err := checker.ParseBlame(tc.blame)
			if err != nil {
				t.Fatal(err)
			}
			rep := check(t, checker.Config{Blame: blame}, log)
			s := rep.Sessions[0]
			if !slices.Equal(s.FailedSignals, tc.failed) {
				t.Errorf("failed signals %v, want %v", s.FailedSignals, tc.failed)
			}
			if s.Counters.Errors != 1 {
				t.Errorf("errors counter %d, want 1 whatever --blame says", s.Counters.Errors)
			}
			if len(rep.Findings) != 1 || rep.Findings[0].Level != tc.level || rep.Findings[0].Party != checker.PartyClient {
				t.Fatalf("findings %+v, want one client finding at level %s", rep.Findings, tc.level)
			}
			wantVerdict := checker.Failed
			if tc.failed == nil {
				wantVerdict = checker.Passed
			}
			if rep.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, wantVerdict)
			}
			gated := 0
			if tc.level == checker.LevelError {
				gated = 1
			}
			if s.Findings.Gated != gated || s.Findings.Gated+s.Findings.Notes != 1 {
				t.Errorf("finding counts %+v, want %d gated of 1", s.Findings, gated)
			}
		})
	}
}

// TestBlameLeavesAssertionsAlone: an assertion is the run's, judged whatever
// --blame names.
func TestBlameLeavesAssertionsAlone(t *testing.T) {
	log := partyLog("stdio", c2s(toolCall("1", "delete_repo", "")), s2c(rpcResult("1", `{"content":[]}`)))
	for _, blame := range []string{"server", "client", "transport"} {
		parties, _ := checker.ParseBlame(blame)
		rep := check(t, checker.Config{Blame: parties, ForbidTools: []string{"delete_repo"}}, log)
		if rep.Verdict != checker.Failed {
			t.Fatalf("--blame %s: verdict %s, want findings (a forbidden tool was called)", blame, rep.Verdict)
		}
		f := rep.Findings[len(rep.Findings)-1]
		if f.RuleID != checker.RuleAssertion || f.Party != checker.PartyRun || f.Level != checker.LevelError {
			t.Errorf("--blame %s: %+v, want a gated assertion of party run", blame, f)
		}
	}
}

// TestBlameAndKnown: a known finding of a blamed party no longer fails,
// one of a party left out never did, and neither changes a fingerprint.
func TestBlameAndKnown(t *testing.T) {
	log := partyLog("stdio",
		c2s(toolCall("1", "echo", "")), s2c(rpcError("1", -32603, "server fault")),
		c2s(`{"id":2,"method":"ping"}`), s2c(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	all := check(t, checker.Config{Fingerprints: true}, log)
	var serverFP string
	fps := map[string]string{}
	for _, f := range all.Findings {
		fps[f.Text] = f.Fingerprint
		if f.Party == checker.PartyServer {
			serverFP = f.Fingerprint
		}
	}
	if serverFP == "" || len(fps) != 2 {
		t.Fatalf("findings %v, want a server error and a client warning", partyLines(all))
	}
	server, _ := checker.ParseBlame("server")
	known := &checker.KnownFindings{Entries: []checker.KnownFinding{{Fingerprint: serverFP, Label: "srv"}}}
	rep := check(t, checker.Config{Blame: server, Known: known}, log)
	if rep.Verdict != checker.Passed {
		t.Errorf("--blame server with its one finding known: verdict %s, findings %v", rep.Verdict, partyLines(rep))
	}
	for _, f := range rep.Findings {
		if f.Fingerprint != fps[f.Text] {
			t.Errorf("%q: fingerprint %s under --blame, %s without", f.Text, f.Fingerprint, fps[f.Text])
		}
		if f.Level != checker.LevelNote {
			t.Errorf("%q: level %s, want note", f.Text, f.Level)
		}
	}
	if s := rep.Sessions[0].Findings; s.Gated != 0 || s.Known != 1 || s.Notes != 2 {
		t.Errorf("finding counts %+v, want 0 gated, 2 notes, 1 known", s)
	}
	wantParties := []checker.PartyCount{{Party: checker.PartyServer, Total: 1}, {Party: checker.PartyClient, Total: 1}}
	if got := rep.Sessions[0].Parties; !slices.Equal(got, wantParties) {
		t.Errorf("parties %+v, want %+v (the known server finding is no longer gated)", got, wantParties)
	}
	client, _ := checker.ParseBlame("client")
	if rep := check(t, checker.Config{Blame: client, Known: known}, log); rep.Verdict != checker.Failed ||
		!slices.Equal(rep.Sessions[0].FailedSignals, []checker.Signal{checker.SignalWarn}) {
		t.Errorf("--blame client: verdict %s, failed %v; want the client's warning to fail", rep.Verdict, rep.Sessions[0].FailedSignals)
	}
}

func TestParseBlame(t *testing.T) {
	for _, bad := range []string{"", "server,", "Server", "run", "everyone"} {
		if _, err := checker.ParseBlame(bad); err == nil {
			t.Errorf("ParseBlame(%q) accepted", bad)
		}
	}
	got, err := checker.ParseBlame("transport,server,server")
	if err != nil || !slices.Equal(got, []checker.Party{checker.PartyServer, checker.PartyTransport}) {
		t.Errorf("ParseBlame = %v, %v", got, err)
	}
}

// TestEveryFindingHasAParty checks every log under fixtures/ with every
// signal gated and validation on: each finding names one of the four
// parties.
func TestEveryFindingHasAParty(t *testing.T) {
	logs, err := filepath.Glob("../fixtures/*/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.Glob("../fixtures/*.jsonl")
	logs = append(logs, top...)
	if len(logs) < 50 {
		t.Fatalf("found %d fixture logs, want the whole fixtures folder", len(logs))
	}
	all, _ := checker.ParseFailOn(allGates + ",wire")
	parties := map[checker.Party]int{}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		eng := checker.New(checker.Config{FailOn: all, MaxDuration: time.Millisecond, ExpectTools: []string{"never-called"}})
		r := capture.NewReader(bytes.NewReader(data), path)
		for {
			f, line, err := r.Next()
			if err != nil {
				break // torn or bad lines are other tests' business
			}
			eng.Ingest(&f, checker.Position{Path: path, Line: line})
		}
		rep := eng.Report()
		checkParties(t, rep)
		for _, f := range rep.Findings {
			parties[f.Party]++
		}
	}
	for _, p := range []checker.Party{checker.PartyServer, checker.PartyClient, checker.PartyTransport, checker.PartyRun} {
		if parties[p] == 0 {
			t.Errorf("no fixture finding of party %s: the fixtures no longer exercise it", p)
		}
	}
	t.Logf("findings by party: %v", parties)
}

// TestAnswerBeforeRequestIsInvalid: a duration below zero (an answer
// timestamped before its request, as an old verify --update wrote them)
// is reported as invalid, the transport's, and so fails the default gate
// rather than passing --max-duration.
func TestAnswerBeforeRequestIsInvalid(t *testing.T) {
	log := logOf("s",
		"1 c2s 1000 "+toolCall("1", "echo", ""),
		"2 s2c 126 "+rpcResult("1", `{"content":[]}`),
		"3 c2s 2000 "+toolCall("2", "echo", ""),
		"4 s2c 2005 "+rpcResult("2", `{"content":[]}`))
	rep := check(t, checker.Config{MaxDuration: time.Second}, log)
	want := []string{"invalid transport tools/call echo (id 1) was answered 874ms before it was asked: the log's timestamps are out of order"}
	sameLines(t, "findings", partyLines(rep), want)
	if s := rep.Sessions[0]; s.Counters.Invalid != 1 || rep.Verdict != checker.Failed || !slices.Equal(s.FailedSignals, []checker.Signal{checker.SignalInvalid}) {
		t.Errorf("invalid=%d, verdict %s, failed %v; want 1, findings, [invalid]", s.Counters.Invalid, rep.Verdict, s.FailedSignals)
	}
}

// TestProxyRefusalIsNoError: a 403 mcpsnoop's proxy wrote itself (its
// DNS-rebinding guard, by_proxy) settles the request it refused, which
// the server never saw: no error, no pending call, one note of the
// transport's naming what was refused, whatever is gated.
func TestProxyRefusalIsNoError(t *testing.T) {
	all, _ := checker.ParseFailOn(allGates)
	log := partyLog("http",
		pf{"c2s", `"raw":` + toolCall("1", "echo", "") + `,"host":"evil.example:8080","origin":"http://evil.example"`},
		pf{"s2c", `"status":403,"by_proxy":true,"reply_to":1,"host":"evil.example:8080","origin":"http://evil.example"`},
		pf{"s2c", `"status":403,"by_proxy":true,"host":"rebound.example"`})
	rep := check(t, checker.Config{FailOn: all}, log)
	sameLines(t, "findings", partyLines(rep), []string{
		`error transport the proxy refused the request itself with HTTP 403 (Host "evil.example:8080", Origin "http://evil.example"): the server never saw it`,
		`error transport the proxy refused the request itself with HTTP 403 (Host "rebound.example"): the server never saw it`,
	})
	s := rep.Sessions[0]
	if rep.Verdict != checker.Passed || s.Counters.Errors != 0 || s.Counters.Pending != 0 {
		t.Errorf("verdict %s, errors %d, pending %d; want passed, 0, 0", rep.Verdict, s.Counters.Errors, s.Counters.Pending)
	}
	for _, f := range rep.Findings {
		if f.Level != checker.LevelNote {
			t.Errorf("%q at level %s, want note", f.Text, f.Level)
		}
	}
}

// TestDuplicateKeysReadLast: a repeated member name means what the
// servers' decoders make of it, its last occurrence, for everything the
// checker reads (the tool an assertion forbids, the id an answer matches,
// isError); a client's request that repeats a name is W59.
func TestDuplicateKeysReadLast(t *testing.T) {
	log := partyLog("stdio",
		c2s(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"safe","arguments":{},"name":"delete_repo"}}`),
		s2c(`{"jsonrpc":"2.0","id":9,"id":1,"result":{"isError":false,"content":[],"isError":true}}`),
		c2s(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"progressToken":"a","progressToken":"b"}}}`),
		s2c(rpcResult("2", `{}`)),
		c2s(rpcRequest("3", "tools/list", `{}`)),
		s2c(rpcResult("3", `{"tools":[{"name":"read_file","inputSchema":{"type":"object"},"name":"delete_repo"}]}`)))
	rep := check(t, checker.Config{ForbidTools: []string{"delete_repo"}}, log)
	sameLines(t, "findings", partyLines(rep), []string{
		`warn client request repeats the member name "name" in one object; servers take its last occurrence`,
		"error server tools/call delete_repo (id 1) ended in an error: the result is marked isError",
		`warn client request repeats the member name "progressToken" in one object; servers take its last occurrence`,
		` run forbidden tool "delete_repo" was called`, // an assertion: no signal
	})
	if rep.Verdict != checker.Failed {
		t.Errorf("verdict %s: --forbid-tool delete_repo passed a call of delete_repo", rep.Verdict)
	}
	if s := rep.Sessions[0]; s.Counters.Pending != 0 || len(s.Tools) != 1 || s.Tools[0].Name != "delete_repo" {
		t.Errorf("pending %d, tools %+v", s.Counters.Pending, s.Tools)
	}
	// A listing is read as clients read it: the tool is delete_repo.
	if l := rep.Sessions[0].Listing; len(l.Tools) != 1 || l.Tools[0].Name != "delete_repo" {
		t.Errorf("listing %+v, want the one tool delete_repo", l.Tools)
	}
}
