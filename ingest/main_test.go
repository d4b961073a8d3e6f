package ingest

import (
	"os"
	"testing"
)

// TestMain lets this test binary run a check in a process of its own
// (roles_linux_test.go), so that a test can measure its memory.
func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role))
	}
	os.Exit(m.Run())
}
