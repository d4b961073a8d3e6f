//go:build !linux

package stdio

import (
	"fmt"
	"os"
)

// roleEnv names the role this test binary plays when a test starts it;
// the roles are Linux-only (roles_linux_test.go).
const roleEnv = "MCPSNOOP_TEST_ROLE"

func runRole(role string) int {
	fmt.Fprintf(os.Stderr, "test role %q is Linux-only\n", role)
	return 2
}
