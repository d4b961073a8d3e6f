package capture

import (
	"os"
	"testing"
	"time"
)

// TestMain lets Close wait an hour for one call to a test's output: the
// outputs of these tests never hang, so a Close that gave up on one would
// only say the machine was busy (a writer's thread can wait seconds for a
// core). The tests of the bound itself set closeTimeout as they need.
func TestMain(m *testing.M) {
	closeTimeout = time.Hour
	os.Exit(m.Run())
}
