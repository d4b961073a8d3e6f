package stdio

import (
	"os"
	"testing"
)

// TestMain lets this test binary stand in for the processes some tests
// need besides themselves (roles.go): a shim whose memory is measured, a
// server that writes a traffic pattern, a process tree to be ended.
func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role))
	}
	os.Exit(m.Run())
}
