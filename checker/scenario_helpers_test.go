package checker_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Helpers shared by the topic test files (mrtr, stats, assertions, findings,
// sessions, window). They build frames for logOf and compare reports.

// numbered prefixes each "dir ms raw" description with a running seq from 1,
// giving logOf's "seq dir ms raw" form.
func numbered(frames ...string) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = strconv.Itoa(i+1) + " " + f
	}
	return out
}

// rpcRequest is a request with raw JSON id and params.
func rpcRequest(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// toolCall is a tools/call of name; extra is more params members (may be "").
func toolCall(id, name, extra string) string {
	p := `{"name":"` + name + `","arguments":{}`
	if extra != "" {
		p += "," + extra
	}
	return rpcRequest(id, "tools/call", p+"}")
}

func rpcResult(id, result string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
}

func rpcError(id string, code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

// cancelNote is a notifications/cancelled naming requestID (raw JSON).
func cancelNote(requestID string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + requestID + `}}`
}

// inputRequired is an input_required result body. state is the raw JSON of
// requestState ("" leaves the member out); keys name the inputRequests
// entries, each an elicitation/create (allowed, not deprecated).
func inputRequired(state string, keys ...string) string {
	var members []string
	members = append(members, `"resultType":"input_required"`)
	if len(keys) > 0 {
		var reqs []string
		for _, k := range keys {
			reqs = append(reqs, `"`+k+`":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`)
		}
		members = append(members, `"inputRequests":{`+strings.Join(reqs, ",")+`}`)
	}
	if state != "" {
		members = append(members, `"requestState":`+state)
	}
	return "{" + strings.Join(members, ",") + "}"
}

// retryParams is the extra params of an MRTR retry: requestState (raw JSON,
// "" for none) and inputResponses with the given keys (none: no member).
func retryParams(state string, keys ...string) string {
	var members []string
	if len(keys) > 0 {
		var resp []string
		for _, k := range keys {
			resp = append(resp, `"`+k+`":{"action":"accept","content":{}}`)
		}
		members = append(members, `"inputResponses":{`+strings.Join(resp, ",")+`}`)
	}
	if state != "" {
		members = append(members, `"requestState":`+state)
	}
	return strings.Join(members, ",")
}

// sameLines fails the test when got and want differ, showing both.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// assertionLines renders a session's assertions as "pass|FAIL name: message".
func assertionLines(sr *checker.SessionReport) []string {
	var out []string
	for _, a := range sr.Assertions {
		verdict := "FAIL"
		if a.Passed {
			verdict = "pass"
		}
		out = append(out, verdict+" "+a.Name+": "+a.Message)
	}
	return out
}

// sameTools compares a session's per-tool statistics exactly.
func sameTools(t *testing.T, sr *checker.SessionReport, want []checker.ToolStats) {
	t.Helper()
	got := sr.Tools
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools:\n  %+v\nwant:\n  %+v", got, want)
	}
}

// onlySession returns the report's single session.
func onlySession(t *testing.T, rep *checker.Report) *checker.SessionReport {
	t.Helper()
	if len(rep.Sessions) != 1 {
		t.Fatalf("sessions = %d, want 1", len(rep.Sessions))
	}
	return rep.Sessions[0]
}

// envelope is one log line with every field spelled out, for tests that need
// what logOf fixes (label, transport, missing session id).
func envelope(sid, label string, seq int, ms int, dir, raw string) string {
	return fmt.Sprintf(`{"session_id":%q,"server_label":%q,"seq":%d,"ts":"2026-07-28T12:00:%02d.%03dZ","direction":%q,"transport":"stdio","raw":%s}`+"\n",
		sid, label, seq, ms/1000, ms%1000, dir, raw)
}
