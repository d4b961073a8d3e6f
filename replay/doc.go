// Package replay re-issues the calls of a recorded MCP session against a
// live server and compares what comes back with what was recorded. It is
// the engine behind `mcpsnoop verify` and the viewer's r key.
//
// The layers run one way:
//
//   - recording.go reads one session of a log into a Recording: the
//     handshake, every client request in order with its recorded answer,
//     the inputResponses of each multi-round-trip (MRTR) retry, the client's
//     answers to server requests, and the recorded tool listing.
//   - safety.go decides which recorded requests may be sent (read-only
//     methods, tools annotated read-only or idempotent and not destructive,
//     nothing redacted at capture).
//   - session.go drives one replay: the handshake of the recorded revision,
//     then each request in order (a request's own recorded _meta, and only
//     that, sent with it), answering the server's questions from the
//     recording. stdio.go and http.go are the two ways to reach a server,
//     both through mcpsnoop's own capture (the stdio shim, the HTTP proxy),
//     so every replay is itself a session log.
//   - compare.go and verify.go turn a replay into a Verification: per call
//     same, changed, error now, ok now, timed out, failed (no answer for
//     another reason), not offered or not replayed, judged by the rules of
//     package diff; durations.go finds the tools whose median duration got
//     slower or faster, a regression only when the caller gates on it.
//   - update.go accepts a replay into its recording (verify --update),
//     keeping the timeline a capture would have written.
//
// Nothing here prints to a terminal or decides exit codes; report.go renders
// the text and JSON forms, and packages junit and sarif the others.
package replay
