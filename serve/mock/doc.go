// Package mock answers MCP clients from a recorded session, so that a
// client can be tested without the server it was recorded against: the
// engine behind `mcpsnoop mock`.
//
// The layers run one way:
//
//   - recording.go reads one session of a log into a Recording: the
//     handshake (initialize or server/discover), every other client request
//     in wire order with its recorded answer, and the server's own messages
//     (notifications, requests) tied to the request they followed, before
//     or after its answer as they were on the wire.
//   - match.go finds the recorded request a live one stands for: by method
//     and params ignoring _meta (method-params), by recorded order
//     (sequential), or exactly (exact); an MRTR retry matches the recorded
//     retry of the same request whatever its requestState; a miss is
//     answered -32601 or -32602 naming the closest recorded request.
//   - conversation.go is one client's conversation: it answers each
//     request with its match (the client's own id, the recorded result's
//     bytes untouched), sends the server's recorded notifications and
//     requests around it, and waits for the client's answers to those
//     requests at most the answer timeout. It records itself as a session
//     log through capture's LogWriter, frames in wire order.
//   - stdio.go runs one conversation over standard input and output;
//     backend.go is the serve.Backend that runs one per Streamable HTTP
//     session (and one for 2026-07-28 requests) behind serve.Handler.
package mock
