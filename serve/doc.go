// Package serve speaks MCP's Streamable HTTP transport as a server on
// behalf of something that is not an HTTP server itself: a stdio server
// process (package serve/bridge) or a recording. It owns what HTTP adds to
// a JSON-RPC conversation, so that a backend only moves messages:
//
//   - for revisions up to 2025-11-25, sessions: an Mcp-Session-Id issued
//     on initialize, one backend peer per session, the session's GET
//     stream, DELETE;
//   - for requests that declare 2026-07-28, one shared peer with the ids
//     (and progress tokens) of concurrent clients remapped so that they
//     cannot collide, the revision's header checks (MCP-Protocol-Version,
//     Mcp-Method, Mcp-Name) and its HTTP statuses for protocol errors;
//   - answers as JSON or as an SSE stream as the client's Accept asks, with
//     the server's requests and notifications that belong to a request on
//     that request's stream;
//   - the loopback Host/Origin guard (internal/hostcheck).
//
// A Handler speaks to a Backend, which starts Peers: a peer is one
// JSON-RPC conversation with a server, messages in (Send) and out (the
// deliver callback), one at a time, in order.
package serve
