//go:build !linux

package ingest

import (
	"fmt"
	"os"
)

const roleEnv = "MCPSNOOP_TEST_ROLE"

func runRole(role string) int {
	fmt.Fprintf(os.Stderr, "test role %q is Linux-only\n", role)
	return 2
}
