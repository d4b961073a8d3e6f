package main

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
)

// The tests that run mcpsnoop as a program (the shim under a client, the
// viewer under tmux, verify's replays, the action's install step) and the
// test servers they run it with are built once per test process
// (testbin), and removed at the end. When every test runs, the builds
// start at once, in the background, so that they compile while the first
// tests run: first the release build, the longest (-trimpath compiles
// every package again; the action's tests, which run last, in parallel,
// link what it compiled), then the others, which a test that needs one
// sooner builds itself (each costs little more than a link).
func TestMain(m *testing.M) {
	flag.Parse()
	// A log folder of the developer's own would move every capture the
	// tests start, and add logs to every lookup: the tests that want one
	// set it.
	os.Unsetenv("MCPSNOOP_LOG_DIR")
	// The parallel tests wait on processes, browsers, timeouts and builds
	// far more than they compute: four at a time (or GOMAXPROCS, when it
	// is more), unless -parallel says otherwise.
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	if testbin.AllTests() {
		startReleaseBuild(relVersion, relCommit)
		testbin.Start(".")
		if runtime.GOOS != "windows" { // the shim and verify tests are unix-only
			testbin.Start("./testdata/sdkserver")
			testbin.Start("./testdata/sdkclient")
			testbin.Start(replayServer)
			testbin.Start(replayServer, replayServerV2)
		}
	}
	os.Exit(testbin.Run(m))
}

// mcpsnoopBinary is mcpsnoop built from this package.
func mcpsnoopBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, ".")
}

// The test server of the replay tests (internal/testserver), as is and
// changed (testserver.V2).
const replayServer = "../../replay/testdata/replayserver"

var replayServerV2 = "-ldflags=-X main.variant=" + testserver.V2
