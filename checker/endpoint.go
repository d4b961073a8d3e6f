package checker

// Exchanges on other paths of the MCP server's origin. A client's OAuth
// flow asks the origin the MCP endpoint lives on for more than MCP: its
// protected-resource and authorization-server metadata (/.well-known/...,
// RFC 9728, RFC 8414), dynamic client registration (/register), the
// authorization and token endpoints. A reverse proxy in front of that
// origin records them with their path (http_path), and none of them is an
// MCP message: a registration's JSON, a token request's form body, an
// error page for a metadata URL the server does not serve (RFC 9728 has
// the client try several). They are kept out of every rule, as the
// protocol channel's frames are not.

import (
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// maxEndpointPaths bounds the paths a session remembers as carrying
// JSON-RPC; past it a new one is not remembered, and a non-JSON-RPC frame
// on it is judged as before.
const maxEndpointPaths = 16

// offEndpoint reports an HTTP frame that is no MCP message: its body is
// not JSON-RPC (or it has none) and its path is not one that has carried
// JSON-RPC in the session (the MCP endpoint; the legacy HTTP+SSE
// transport has two), or, before any has, a well-known URI (RFC 8615),
// which is never an MCP endpoint. A JSON-RPC frame is always judged, and
// its path is remembered. Older logs, without http_path, are judged
// whole, as before.
func (s *session) offEndpoint(f *capture.Frame) bool {
	if f.Transport != capture.TransportHTTP || f.HTTPPath == "" {
		return false
	}
	for _, p := range s.http.endpoints {
		if p == f.HTTPPath {
			return false // the endpoint's own frames: judged, parsed once
		}
	}
	if f.HasBody() {
		if m := parseMessage(f.Raw); m.kind != kindNotRPC && !oauthErrorBody(&m, f.Status) {
			s.http.noteEndpoint(f.HTTPPath)
			return false
		}
	}
	if len(s.http.endpoints) == 0 {
		return strings.HasPrefix(f.HTTPPath, "/.well-known/")
	}
	return len(s.http.endpoints) < maxEndpointPaths
}

// noteEndpoint remembers a path that carried JSON-RPC.
func (h *httpState) noteEndpoint(path string) {
	if len(h.endpoints) < maxEndpointPaths {
		h.endpoints = append(h.endpoints, clone(path))
	}
}
