// Package testneed lets a test say that it needs something the machine may
// lack (a browser, tmux, a linter, a validator): without it the test is
// skipped with a message, except under MCPSNOOP_E2E_REQUIRE=1, as .ci/run
// sets it, where a missing prerequisite fails the test, so that a CI
// machine that lost a tool cannot turn its tests into silent skips.
package testneed

import (
	"fmt"
	"os"
	"testing"
)

// RequireEnv is the variable that turns a missing prerequisite into a
// failure when it is "1".
const RequireEnv = "MCPSNOOP_E2E_REQUIRE"

// Required says whether missing prerequisites fail tests here.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing ends the test for want of a prerequisite the message names (and
// says how to get): a skip, or a failure when Required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (%s=1: a missing prerequisite fails the test)", msg, RequireEnv)
	}
	t.Skip(msg)
}
