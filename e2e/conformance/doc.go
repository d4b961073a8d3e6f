// Package conformance holds mcpsnoop's verdicts to the official MCP
// conformance suite's (@modelcontextprotocol/conformance): every server
// scenario of the suite runs against real servers through `mcpsnoop http`
// (and against server-everything's stdio mode through `mcpsnoop bridge`),
// every client scenario runs the Go SDK's conformance client through it
// against the suite's mock server, and `mcpsnoop check` judges each
// scenario's recording. agreement.tsv lists, per scenario, the suite's
// verdict, ours, and why they differ where they do.
//
// This package reads what the suite writes (ReadResults), merges the
// bridge's logs (Merge), cuts a recording into one log per scenario
// (Split) and keeps the table (ReadTable, Compare). The end-to-end test
// that runs it all is behind the e2e build tag (go test -tags e2e
// ./e2e/conformance/); docs/guides/conformance.md says how to run it and
// what it needs.
package conformance
