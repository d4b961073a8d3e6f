package checker

// The streamable-HTTP Accept and Content-Type rules (seed README, "Check the transport headers the spec makes mandatory").

import (
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// transportRules judges the HTTP headers the Streamable HTTP transport
// states rules about. Both rules read the same in 2025-11-25 and 2026-07-28,
// so there is no revision gate; a header the capture did not record (an
// older log, or stdio) is silent.
func (s *session) transportRules(fc *frameCtx) {
	f := fc.f
	if f.Transport != capture.TransportHTTP {
		return
	}
	switch f.Direction {
	case capture.ClientToServer:
		s.versionHeaderRule(fc)
		if f.Accept != "" && !acceptsJSONAndSSE(f.Accept) {
			fc.warn("W46", "request Accept <accept> does not offer both application/json and text/event-stream, which Streamable HTTP requires",
				"request Accept "+strconv.Quote(f.Accept)+" does not offer both application/json and text/event-stream, which Streamable HTTP requires")
		}
	case capture.ServerToClient:
		if f.HTTPMethod == "GET" && f.Status >= 200 && f.Status < 300 && fc.msg.kind != kindNotRPC && !fc.getJudged {
			fc.getJudged = true
			s.getAnswer(fc) // a JSON-RPC body answering a GET
		}
		if f.ContentType != "" {
			switch capture.MediaType(f.ContentType) {
			case "application/json", "text/event-stream":
			default:
				fc.warn("W47", "response Content-Type <type> is neither application/json nor text/event-stream, which Streamable HTTP requires for a JSON-RPC body",
					"response Content-Type "+strconv.Quote(f.ContentType)+" is neither application/json nor text/event-stream, which Streamable HTTP requires for a JSON-RPC body")
			}
		}
	}
}

// acceptsJSONAndSSE reports whether an Accept value lists both
// application/json and text/event-stream. A wildcard does not list them:
// the spec says the client MUST include both, and the TS SDK's servers
// answer a wildcard-only Accept with 406. Parameters (q, charset) are
// ignored.
func acceptsJSONAndSSE(accept string) bool {
	json, sse := false, false
	for _, r := range strings.Split(accept, ",") {
		switch capture.MediaType(r) {
		case "application/json":
			json = true
		case "text/event-stream":
			sse = true
		}
	}
	return json && sse
}

// versionHeaderRule applies W56: after initialize negotiated 2025-06-18 or
// later (the header does not exist before), a client's MCP-Protocol-Version
// header names the negotiated revision. A message that declares 2026-07-28
// in its own _meta speaks that revision (one endpoint may serve both), and
// W39 holds its header to it instead.
func (s *session) versionHeaderRule(fc *frameCtx) {
	h, neg := fc.f.McpProtocolVersion, s.rev.negotiated
	if h == "" || neg < "2025-06-18" || h == neg || fc.f.Batch {
		return
	}
	m := &fc.msg
	if m.kind == kindRequest && m.method == "initialize" {
		return
	}
	if v := member(requestMeta(m), metaProtocolVersion); v.Type == gjson.String && atLeast20260728(v.Str) {
		return
	}
	fc.warn("W56", "MCP-Protocol-Version header <h> is not the negotiated revision <negotiated>",
		"MCP-Protocol-Version header "+strconv.Quote(h)+" is not the negotiated revision "+strconv.Quote(neg))
}
