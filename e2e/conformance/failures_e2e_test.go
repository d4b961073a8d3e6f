//go:build e2e && unix

package conformance

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The test's own failures are repeated in one block at the very end of its
// output: when it fails it also prints the peers' output, and CI keeps
// only the tail of a run.
var failures struct {
	sync.Mutex
	msgs []string
}

// noteFailure keeps msg for repeatFailures.
func noteFailure(msg string) {
	failures.Lock()
	defer failures.Unlock()
	failures.msgs = append(failures.msgs, msg)
}

func errorf(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	noteFailure(msg)
	t.Error(msg)
}

func fatalf(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	noteFailure(msg)
	t.Fatal(msg)
}

func fatal(t testing.TB, err error) {
	t.Helper()
	fatalf(t, "%v", err)
}

// repeatFailures, registered as the test's first cleanup so that it runs
// last, logs every failure noted since the test began.
func repeatFailures(t *testing.T) {
	failures.Lock()
	failures.msgs = nil
	failures.Unlock()
	t.Cleanup(func() {
		failures.Lock()
		defer failures.Unlock()
		if len(failures.msgs) == 0 {
			return
		}
		t.Logf("%d failure(s), repeated here after the peers' output:\n  %s", len(failures.msgs), strings.Join(failures.msgs, "\n  "))
	})
}
