package serve

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// ModernRevision is the first revision without sessions: a request that
// declares it (or a later one) goes to the shared peer.
const ModernRevision = "2026-07-28"

// Header and _meta names.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	metaProtocolVersion   = "io.modelcontextprotocol/protocolVersion"
	metaSubscriptionID    = "io.modelcontextprotocol/subscriptionId"
)

// isModern reports whether a protocol version is 2026-07-28 or later
// (revisions are dates, so they compare as strings).
func isModern(v string) bool { return v >= ModernRevision }

// modernRequest reports whether a POSTed message belongs to the shared
// peer: it declares 2026-07-28 or later in its _meta, or (declaring
// nothing there) in its MCP-Protocol-Version header. An initialize that
// declares nothing in _meta opens a session (the header is not required
// on it); one that declares 2026-07-28 goes to the shared peer, which
// answers for a method the revision removed.
func modernRequest(r *http.Request, m message) bool {
	if v := m.get(metaPath(metaProtocolVersion)); v.Exists() {
		return isModern(v.String())
	}
	if m.method == "initialize" {
		return false
	}
	return isModern(r.Header.Get(headerProtocolVersion))
}

// refusal is an answer of the handler's own: an HTTP status and, when
// code is not zero, a JSON-RPC error body.
type refusal struct {
	status int
	code   int
	text   string
}

func (r *refusal) Error() string { return r.text }

func refuse(status, code int, format string, args ...any) *refusal {
	return &refusal{status: status, code: code, text: fmt.Sprintf(format, args...)}
}

// checkModernHeaders applies 2026-07-28's rules for the headers of a
// request, which a stdio server cannot see: MCP-Protocol-Version present
// and equal to _meta's, Mcp-Method equal to the method, Mcp-Name equal to
// the tool or prompt name or resource URI (decoded from the base64
// sentinel). A mismatch is 400 with -32020 (HeaderMismatch); a request
// without its _meta protocol version is 400 with -32602.
func checkModernHeaders(h http.Header, m message) *refusal {
	if m.kind != kindRequest {
		return nil
	}
	hv := h.Get(headerProtocolVersion)
	mv := m.get(metaPath(metaProtocolVersion))
	switch {
	case hv == "":
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is required for requests carrying %q", headerProtocolVersion, metaProtocolVersion)
	case !mv.Exists() || mv.String() == "":
		return refuse(http.StatusBadRequest, codeInvalidParams, "missing or invalid _meta field %q", metaProtocolVersion)
	case hv != mv.String():
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header %q does not match _meta %q %q", headerProtocolVersion, hv, metaProtocolVersion, mv.String())
	}
	got, ok := headerValue(h, headerMethod)
	switch {
	case !ok:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is required", headerMethod)
	case got != m.method:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header %q does not match the method %q", headerMethod, got, m.method)
	}
	var name string
	switch m.method {
	case "tools/call", "prompts/get":
		name = m.get("params.name").String()
	case "resources/read":
		name = m.get("params.uri").String()
	default:
		return nil
	}
	got, ok = headerValue(h, headerName)
	switch {
	case !ok:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is required for %s", headerName, m.method)
	case got != name:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header %q does not match %q", headerName, got, name)
	}
	return nil
}

// headerValue reads a routing header, decoding the =?base64?...?= sentinel;
// ok is false when it is absent or not valid.
func headerValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) != 1 {
		return "", false
	}
	v := vs[0]
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-len("?=")])
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	return v, true
}

// modernErrorStatus is the HTTP status 2026-07-28 gives a JSON-RPC error
// answered as JSON: 404 for -32601, 400 for the protocol's request errors.
func modernErrorStatus(code int64) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeInvalidParams, codeHeaderMismatch, codeMissingRequiredCapabilities, codeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
