package checker

// The streamable-HTTP Accept and Content-Type rules (seed README, "Check the transport headers the spec makes mandatory").

import (
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
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
		if f.Accept != "" && !acceptsJSONAndSSE(f.Accept) {
			fc.warn("W46", "request Accept <accept> does not offer both application/json and text/event-stream, which Streamable HTTP requires",
				"request Accept "+strconv.Quote(f.Accept)+" does not offer both application/json and text/event-stream, which Streamable HTTP requires")
		}
	case capture.ServerToClient:
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

// acceptsJSONAndSSE reports whether an Accept value offers both
// application/json and text/event-stream, wildcards included. Parameters
// (q, charset) are ignored.
func acceptsJSONAndSSE(accept string) bool {
	json, sse := false, false
	for _, r := range strings.Split(accept, ",") {
		switch capture.MediaType(r) {
		case "*/*":
			json, sse = true, true
		case "application/*", "application/json":
			json = true
		case "text/*", "text/event-stream":
			sse = true
		}
	}
	return json && sse
}
