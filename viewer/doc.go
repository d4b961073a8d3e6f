// Package viewer shows captured MCP sessions: the terminal UI behind
// `mcpsnoop open`, the live `mcpsnoop` and `mcpsnoop demo`, and the plain
// text stream those commands print when stdout is not a terminal.
//
// The layers run one way: the checker engine judges frames and calls
// (collect.go turns what it says into rows, row.go keeps each small), a
// Store holds the rows of each session within a memory budget (store.go),
// the follower tails the state
// directory's session logs (follow.go), a Filter selects rows (filter.go),
// and the bubbletea model draws them (model.go, view.go, panels.go). Nothing
// here decides a verdict: every kind, status and warning comes from the
// engine.
package viewer
