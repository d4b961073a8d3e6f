package checker

import (
	"math"
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/jsondup"
	"github.com/tidwall/gjson"
)

// checkJSONRPCShape applies the JSON-RPC shape rules W1-W8 (check.md 3.3 A)
// to every parsed JSON-RPC frame.
func checkJSONRPCShape(fc *frameCtx) {
	m := &fc.msg
	switch {
	case !m.hasRPC || m.jsonrpc.Type == gjson.Null || (m.jsonrpc.Type == gjson.String && m.jsonrpc.Str == ""):
		fc.warn("W1", "missing jsonrpc=2.0", "missing jsonrpc=2.0")
	case m.jsonrpc.Type != gjson.String || m.jsonrpc.Str != "2.0":
		fc.warn("W2", "jsonrpc must be 2.0", "jsonrpc must be 2.0")
	}
	if m.kind == kindRequest {
		checkRequestID(fc, m.id)
		return
	}
	if m.method != "" || !m.hasID {
		return
	}
	switch {
	case m.hasResult && m.id.Type == gjson.Null:
		fc.warn("W6", "result response id is null; it names no request", "result response id is null; it names no request")
	}
	switch {
	case !m.hasResult && !m.hasError:
		fc.warn("W7", "response has neither result nor error", "response has neither result nor error")
	case m.hasResult && m.hasError:
		fc.warn("W8", "response has both result and error", "response has both result and error")
	}
}

// checkRequestID applies W3-W5: MCP ids are strings or integers.
func checkRequestID(fc *frameCtx, id gjson.Result) {
	const tail = "; MCP requires a string or integer id"
	switch id.Type {
	case gjson.Number:
		if !isIntegral(id.Raw) {
			fc.warn("W3", "request id <raw number> is not an integer"+tail, "request id "+id.Raw+" is not an integer"+tail)
		}
	case gjson.Null:
		fc.warn("W4", "request id is null"+tail, "request id is null"+tail)
	case gjson.True, gjson.False:
		fc.warn("W5", "request id has type boolean"+tail, "request id has type boolean"+tail)
	case gjson.JSON:
		t := "object"
		if id.IsArray() {
			t = "array"
		}
		fc.warn("W5", "request id has type "+t+tail, "request id has type "+t+tail)
	}
}

// isIntegral judges a JSON number by value: 2.0 and 1e3 are integers.
func isIntegral(raw string) bool {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	return f == math.Trunc(f)
}

// duplicateKeyRule applies W59: a client's request that repeats a member
// name in one of its objects. JSON leaves its meaning open; the servers'
// decoders (JavaScript, Go, Python) take the last occurrence, and so does
// everything mcpsnoop reads, but a reader that takes the first (a gateway,
// a policy filter) sees another request than the server runs.
func duplicateKeyRule(fc *frameCtx) {
	if !fc.dupKeys || fc.msg.kind != kindRequest || fc.f.Direction != capture.ClientToServer {
		return
	}
	name, _ := jsondup.Repeated(fc.f.Raw)
	fc.warn("W59", "request repeats the member name <name> in one object; servers take its last occurrence",
		"request repeats the member name "+strconv.Quote(fc.s.serverWords(name))+" in one object; servers take its last occurrence")
}

// readsWhole reports a message whose every member the checker may read,
// and so is looked at for repeated names: a request, a notification, and
// an answer that defines what the server offers (its tools, prompts and
// resources, its capabilities). Other results are large and read in a few
// places (resultType and isError take their last occurrence as they are
// parsed), so they are not walked: the walk is a tenth of a check's time.
func (s *session) readsWhole(fc *frameCtx) bool {
	m := &fc.msg
	switch m.kind {
	case kindRequest, kindNotification:
		return true
	case kindResponse:
		c := s.calls.open[callKey{dir: opposite(fc.f.Direction), id: m.idText(), conn: fc.f.ConnID}]
		if c == nil {
			return false
		}
		switch c.method {
		case "initialize", "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			return true
		}
	}
	return false
}
