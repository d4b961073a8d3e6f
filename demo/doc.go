// Package demo holds the two MCP peers of `mcpsnoop demo`: a made-up
// weather server with four tools and a scripted client, which talk real
// MCP over Streamable HTTP (revision 2025-11-25: initialize, an
// Mcp-Session-Id, the MCP-Protocol-Version header after initialize) so
// that the demo's log is traffic any MCP peer would accept.
//
// They are small on purpose: the demo ships in the mcpsnoop binary, which
// every shim a client starts loads, so it must not link an MCP SDK. The
// server is a serve.Backend behind the project's own Streamable HTTP
// handler (package serve); the client speaks the transport itself. Tests
// hold both to the official Go SDK: its client against this server, this
// client against its server.
package demo
