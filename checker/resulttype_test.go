package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Helpers shared by the response-rule tests (mrtrrules, resulttype, cache).

// revMeta is a params member "_meta" declaring revision rev and, unless caps
// is "", the raw JSON of its clientCapabilities.
func revMeta(rev, caps string) string {
	var members []string
	if rev != "" {
		members = append(members, `"io.modelcontextprotocol/protocolVersion":"`+rev+`"`)
	}
	if caps != "" {
		members = append(members, `"io.modelcontextprotocol/clientCapabilities":`+caps)
	}
	return `"_meta":{` + strings.Join(members, ",") + `}`
}

// meta2026 declares 2026-07-28 with empty client capabilities: a request no
// rule of check.md 3.3 E complains about.
var meta2026 = revMeta("2026-07-28", "{}")

// answerWarnings checks "dir ms raw" frames (numbered from seq 1) and returns
// the warnings on the s2c frames, the ones the response rules judge.
func answerWarnings(t *testing.T, frames ...string) []string {
	t.Helper()
	return warningsOnAnswers(t, logOf("s", numbered(frames...)...), frames)
}

// warningsOnAnswers is answerWarnings for a log built by hand, one line per
// frame.
func warningsOnAnswers(t *testing.T, log string, frames []string) []string {
	t.Helper()
	answers := map[int]bool{}
	for i, f := range frames {
		answers[i+1] = strings.HasPrefix(f, "s2c ")
	}
	var out []string
	for _, f := range check(t, checker.Config{}, log).Findings {
		if f.Signal == checker.SignalWarn && answers[f.Line] {
			out = append(out, f.Message)
		}
	}
	return out
}

// TestResultTypeRules covers W13 and W14 (check.md 3.3 B).
func TestResultTypeRules(t *testing.T) {
	const (
		missing = "session s line 2: result is missing required resultType"
		invalid = "session s line 2: result has an invalid resultType"
	)
	ping := func(meta string) string { return rpcRequest("1", "ping", "{"+meta+"}") }
	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		{"W13 fires on a 2026-07-28 result without resultType",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{}`)}, []string{missing}},
		{"W13 fires on a later revision",
			[]string{"c2s 0 " + ping(revMeta("2027-01-01", "{}")), "s2c 1 " + rpcResult("1", `{"tools":[]}`)}, []string{missing}},
		{"W13 passes with a resultType",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":"complete"}`)}, nil},
		{"W13 passes with an unknown but well-formed resultType",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":"something-new"}`)}, nil},
		{"W13 gate: initialize is exempt",
			[]string{"c2s 0 " + rpcRequest("1", "initialize", "{"+meta2026+"}"), "s2c 1 " + rpcResult("1", `{}`)}, nil},
		{"W13 gate: revision below 2026-07-28",
			[]string{"c2s 0 " + ping(revMeta("2025-11-25", "")), "s2c 1 " + rpcResult("1", `{}`)}, nil},
		{"W13 gate: a legacy request declares nothing",
			[]string{"c2s 0 " + rpcRequest("1", "ping", `{}`), "s2c 1 " + rpcResult("1", `{}`)}, nil},
		{"W13 gate: an empty _meta version is no declaration",
			[]string{"c2s 0 " + ping(revMeta("", "{}")), "s2c 1 " + rpcResult("1", `{}`)}, nil},
		{"W13 gate: an error response has no result",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcError("1", -32601, "nope")}, nil},
		{"W13 gate: a result that is not an object",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `[]`)}, nil},
		{"W14 fires on a number",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":5}`)}, []string{invalid}},
		{"W14 fires on an empty string",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":""}`)}, []string{invalid}},
		{"W14 fires on null",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":null}`)}, []string{invalid}},
		{"W14 fires on an object",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":{"a":"complete"}}`)}, []string{invalid}},
		{"W14 gate: revision below 2026-07-28",
			[]string{"c2s 0 " + ping(revMeta("2025-06-18", "{}")), "s2c 1 " + rpcResult("1", `{"resultType":5}`)}, nil},
		{"W14 gate: initialize is exempt",
			[]string{"c2s 0 " + rpcRequest("1", "initialize", "{"+meta2026+"}"), "s2c 1 " + rpcResult("1", `{"resultType":""}`)}, nil},
		{"W13 on a late answer to a cancelled call",
			[]string{"c2s 0 " + ping(meta2026), "c2s 5 " + cancelNote("1"), "s2c 9 " + rpcResult("1", `{}`)},
			[]string{"session s line 3: result is missing required resultType"}},
		{"W13 not on a duplicate answer",
			[]string{"c2s 0 " + ping(meta2026), "s2c 1 " + rpcResult("1", `{"resultType":"complete"}`), "s2c 2 " + rpcResult("1", `{}`)},
			[]string{"session s line 3: duplicate response for the same id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", answerWarnings(t, tt.frames...), tt.want)
		})
	}
}

// TestResultTypeHeaderRevision: the MCP-Protocol-Version header declares a
// revision when _meta does not.
func TestResultTypeHeaderRevision(t *testing.T) {
	line := func(seq int, dir, extra, raw string) string {
		return fmt.Sprintf(`{"session_id":"s","server_label":"srv","seq":%d,"ts":"2026-07-28T12:00:00.%03dZ","direction":%q,"transport":"stdio"%s,"raw":%s}`+"\n",
			seq, seq, dir, extra, raw)
	}
	for _, tc := range []struct {
		header string
		want   []string
	}{
		{"2026-07-28", []string{"session s line 2: server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400), result is missing required resultType"}},
		{"2025-11-25", nil},
	} {
		log := line(1, "c2s", `,"mcp_protocol_version":"`+tc.header+`"`, rpcRequest("1", "ping", `{}`)) +
			line(2, "s2c", "", rpcResult("1", `{}`))
		sameLines(t, "header "+tc.header, warningsOnAnswers(t, log, []string{"c2s 0", "s2c 1"}), tc.want)
	}
}
