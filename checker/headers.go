package checker

// W36-W44 and the -32020 mismatch: routing headers, the direction of a stateless session and per-request _meta (check.md 3.3 E, 3.4).

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// redactedMarker is what mcpsnoop's own redaction writes in place of a value.
const redactedMarker = capture.RedactedValue

// headerMismatchCode is the JSON-RPC error a 2026-07-28 server answers a
// request with when a header disagrees with the body (HeaderMismatch).
const headerMismatchCode = -32020

// The _meta keys these rules read.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// revisionOf is declaredRevision without its allocation: the _meta
// protocolVersion when it is a non-empty string (fromMeta), else the
// MCP-Protocol-Version header.
func revisionOf(meta gjson.Result, f *capture.Frame) (rev string, fromMeta bool) {
	if v := member(meta, metaProtocolVersion); v.Type == gjson.String && v.Str != "" {
		return v.Str, true
	}
	return f.McpProtocolVersion, false
}

// requestMeta is params._meta of a request or notification, when an object.
func requestMeta(m *message) gjson.Result {
	if meta := m.paramField("_meta"); meta.IsObject() {
		return meta
	}
	return gjson.Result{}
}

// headerRules applies W36-W44 in table order and flags a server's own
// -32020 verdict as a mismatch.
func (s *session) headerRules(fc *frameCtx) {
	m := &fc.msg
	f := fc.f

	// The server's HeaderMismatch: a mismatch, no warning (the error itself
	// is already counted by the response rules).
	if m.hasError && isHeaderMismatchError(m.errorVal) {
		fc.mismatch = true
	}

	if f.McpMethod != "" || f.McpName != "" || f.McpProtocolVersion != "" {
		s.routingHeaderRules(fc)
	}

	switch {
	case f.Direction == capture.ClientToServer && m.kind == kindRequest && !f.Batch:
		s.requestMetaRules(fc)
	case f.Direction == capture.ServerToClient && m.kind == kindRequest && !f.Batch && atLeast20260728(fc.clientRevision()):
		fc.warn("W41", "server sent a JSON-RPC request <m>, which 2026-07-28 replaced with the MRTR pattern",
			"server sent a JSON-RPC request "+strconv.Quote(m.method)+", which 2026-07-28 replaced with the MRTR pattern")
	case f.Direction == capture.ClientToServer && m.kind == kindResponse && atLeast20260728(fc.clientRevision()):
		fc.warn("W42", "client sent a JSON-RPC response, which 2026-07-28 no longer defines",
			"client sent a JSON-RPC response, which 2026-07-28 no longer defines")
	}
}

// isHeaderMismatchError reports a JSON-RPC error object with code -32020.
func isHeaderMismatchError(errVal gjson.Result) bool {
	if !errVal.IsObject() {
		return false
	}
	code := errVal.Get("code")
	return code.Type == gjson.Number && code.Num == headerMismatchCode
}

// routingHeaderRules applies W36-W39 to a frame that carries at least one
// routing header.
func (s *session) routingHeaderRules(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	redacted := f.Redacted

	// W36
	if f.Batch && (f.McpMethod != "" || f.McpName != "") {
		fc.warn("W36", "routing headers are invalid on a JSON-RPC batch", "routing headers are invalid on a JSON-RPC batch")
		fc.mismatch = true
	}
	// W37
	if h := f.McpMethod; h != "" && m.method != "" && h != m.method && !scrubbedPair(redacted, h, m.method) {
		fc.warn("W37", "routing header Mcp-Method <h> disagrees with body method <m>",
			"routing header Mcp-Method "+h+" disagrees with body method "+m.method)
		fc.mismatch = true
	}
	// W38
	if h := f.McpName; h != "" {
		if name := m.opName(); name != "" {
			decoded, ok := decodeHeaderValue(h)
			if !ok {
				decoded = h // not Base64 after all: it cannot name the body's operation
			}
			if decoded != name && !scrubbedPair(redacted, h, name) && !scrubbedPair(redacted, decoded, name) {
				fc.warn("W38", "routing header Mcp-Name <decoded> disagrees with body name <name>",
					"routing header Mcp-Name "+strconv.Quote(decoded)+" disagrees with body name "+strconv.Quote(name))
				fc.mismatch = true
			}
		}
	}
	// W39
	if h := f.McpProtocolVersion; h != "" {
		if v := member(requestMeta(m), metaProtocolVersion); v.Type == gjson.String && v.Str != "" && v.Str != h && !scrubbedPair(redacted, h, v.Str) {
			fc.warn("W39", "MCP-Protocol-Version header <h> disagrees with _meta protocolVersion <m>",
				"MCP-Protocol-Version header "+h+" disagrees with _meta protocolVersion "+v.Str)
			fc.mismatch = true
		}
	}
}

// scrubbedPair reports a comparison mcpsnoop's own redaction made
// impossible: the frame was rewritten and one side is the placeholder.
func scrubbedPair(redacted bool, a, b string) bool {
	return redacted && (a == redactedMarker || b == redactedMarker)
}

// requestMetaRules applies W40, W43 and W44 to a client request (not part
// of a batch) and notes when the session turns stateless.
func (s *session) requestMetaRules(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	meta := requestMeta(m)
	rev, hasMetaVersion := revisionOf(meta, f)
	if !atLeast20260728(rev) {
		return // a legacy request: none of these rules apply
	}
	// W40
	if f.Transport == capture.TransportHTTP {
		if f.McpProtocolVersion == "" {
			fc.warn("W40", "required routing header <Header> is missing", "required routing header MCP-Protocol-Version is missing")
			fc.mismatch = true
		}
		if f.McpMethod == "" {
			fc.warn("W40", "required routing header <Header> is missing", "required routing header Mcp-Method is missing")
			fc.mismatch = true
		}
		if f.McpName == "" {
			switch m.method {
			case "tools/call", "resources/read", "prompts/get":
				fc.warn("W40", "required routing header <Header> is missing", "required routing header Mcp-Name is missing")
				fc.mismatch = true
			}
		}
	}
	// W43
	if caps := member(meta, metaClientCapabilities); !caps.Exists() || caps.Type == gjson.Null {
		fc.warn("W43", "request _meta is missing required io.modelcontextprotocol/clientCapabilities",
			"request _meta is missing required io.modelcontextprotocol/clientCapabilities")
		fc.refusable(refuseMeta)
	}
	// W44
	if !hasMetaVersion {
		fc.warn("W44", "request _meta is missing required io.modelcontextprotocol/protocolVersion",
			"request _meta is missing required io.modelcontextprotocol/protocolVersion")
		fc.refusable(refuseMeta)
	}
}

const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// decodeHeaderValue undoes the Base64 sentinel =?base64?<payload>?= (markers
// case-sensitive, payload in the standard alphabet, padded or not), once. A
// value without the sentinel is returned as it is; ok is false when the
// payload is not Base64.
func decodeHeaderValue(v string) (string, bool) {
	if len(v) < len(sentinelPrefix)+len(sentinelSuffix) ||
		!strings.HasPrefix(v, sentinelPrefix) || !strings.HasSuffix(v, sentinelSuffix) {
		return v, true
	}
	payload := v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)]
	if strings.ContainsAny(payload, "\r\n") {
		return "", false // the decoder would skip them; a header value has none
	}
	enc := base64.StdEncoding
	if len(payload)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(payload)
	if err != nil {
		return "", false
	}
	return string(b), true
}
