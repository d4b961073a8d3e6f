// Package schemacheck validates MCP JSON-RPC messages against the JSON schema the
// specification publishes for each protocol revision, the way the official
// conformance suite does: a request and a notification against the
// definition of their method, a result against the definition of the
// request it answers, an error against the error response, each also
// against its JSON-RPC envelope.
//
// The five schemas (2024-11-05 to 2026-07-28) are embedded, unchanged, from
// the specification's repository (schemas/README.md gives their source and
// licence). A revision's schema is compiled at its first use, and the
// sub-schema of each definition once, the first time a message needs it;
// a message is checked against its own definition only, never the union of
// every message.
//
// Validating must stay cheap enough to run on every frame of a large
// capture. A message is decoded by a walker of our own rather than
// encoding/json: string values are views of the frame's bytes, a long
// string is handed over as a prefix (no MCP schema constrains a string's
// content beyond const and enum), and the bodies the schema leaves open
// (tools/call arguments, structuredContent) become empty values of their
// own type. And a message whose shape (what the schema can see of it, shape.go) already
// validated gets the same verdict without the validator; a faulty message
// is always validated in full. The package does no I/O and keeps nothing
// of a message but the shapes that validated (a bounded set).
//
// Linking the package registers its Validate with package wire, which the
// checker calls: the mcpsnoop binary links it, and the stdio shim's own
// binary does not, because the JSON schema library compiles its
// metaschemas at init (about 10 ms and 1.7 MB on every start).
package schemacheck
