package main

import (
	"os"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

// The tests that run mcpsnoop as a program (the shim under a client, the
// viewer under tmux, verify's replays, the action's install step) and the
// test servers they run it with are built once per test process
// (testbin), and removed at the end.
func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// mcpsnoopBinary is mcpsnoop built from this package.
func mcpsnoopBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, ".")
}
