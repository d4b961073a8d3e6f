// Package testbin builds the Go programs that tests run as processes
// (mcpsnoop itself, test servers) once per test process. The first test
// that asks for a build makes it; later ones, and parallel ones (which wait
// for it), get the same binary. A package's TestMain runs its tests
// through Run, which removes the binaries afterwards:
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }
//
// Builds differ by package and by flags: builds that differ only in
// -ldflags (a version stamped in, say) share every compiled package in the
// Go build cache and cost a link each.
//
// When a test process runs all its tests (no -run, not -short), its
// TestMain may Start the builds they need before they run, so that the
// builds compile while the first tests run rather than one after another
// inside the tests that need them.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	dir    string // where the binaries go; made on the first build
	dirErr error
	builds = map[string]*build{}
	wg     sync.WaitGroup // the background builder (Start)
)

type build struct {
	once  sync.Once
	abs   string
	key   string
	flags []string
	path  string
	err   error
	out   []byte
}

// get returns the build of pkg with flags.
func get(pkg string, flags []string) (*build, error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return nil, err
	}
	key := abs + "\x00" + strings.Join(flags, "\x00")
	mu.Lock()
	defer mu.Unlock()
	if dir == "" && dirErr == nil {
		dir, dirErr = os.MkdirTemp("", "mcpsnoop-testbin-")
	}
	if dirErr != nil {
		return nil, dirErr
	}
	b := builds[key]
	if b == nil {
		b = &build{abs: abs, key: key, flags: flags}
		builds[key] = b
	}
	return b, nil
}

// make runs go build, once.
func (b *build) make() {
	b.once.Do(func() {
		// Named after its package, as go build names it (tests may read
		// the name: a shim's default label is its server's), in a folder
		// of its own.
		sum := sha256.Sum256([]byte(b.key))
		sub := filepath.Join(dir, hex.EncodeToString(sum[:8]))
		if b.err = os.Mkdir(sub, 0o755); b.err != nil {
			return
		}
		b.path = filepath.Join(sub, filepath.Base(b.abs))
		if runtime.GOOS == "windows" {
			b.path += ".exe"
		}
		// Run in the package's own folder: a test may have changed the
		// process's working directory (t.Chdir) to one outside the module
		// while the background builder runs.
		args := append(append([]string{"build", "-o", b.path}, b.flags...), ".")
		cmd := exec.Command("go", args...)
		cmd.Dir = b.abs
		b.out, b.err = cmd.CombinedOutput()
	})
}

// Build returns the path of the program in the package directory pkg (as
// go build takes it, relative to the test's working directory) built with
// the go build flags given, building it on the first call for that package
// and those flags (or waiting for the build Start began). A failed build
// fails the test, with go build's output.
func Build(t testing.TB, pkg string, flags ...string) string {
	t.Helper()
	b, err := get(pkg, flags)
	if err != nil {
		t.Fatal(err)
	}
	b.make()
	if b.err != nil {
		t.Fatalf("go build %s %s: %v\n%s", strings.Join(flags, " "), pkg, b.err, b.out)
	}
	return b.path
}

// Start queues the build Build(pkg, flags...) would make, to be made in
// the background: queued builds are made one at a time, in order (two go
// builds at once would compile their common packages twice), and a test
// that asks for one before its turn makes it itself. Call Start from
// TestMain, after flag.Parse, when AllTests says every test will run: a
// build no test asks for is work for nothing.
func Start(pkg string, flags ...string) {
	b, err := get(pkg, flags)
	if err != nil {
		return // Build reports it
	}
	mu.Lock()
	defer mu.Unlock()
	queue = append(queue, b)
	if !working {
		working = true
		wg.Add(1)
		go work()
	}
}

var (
	queue   []*build // builds Start queued, not begun yet
	working bool     // work runs
)

func work() {
	defer wg.Done()
	for {
		mu.Lock()
		if len(queue) == 0 {
			working = false
			mu.Unlock()
			return
		}
		b := queue[0]
		queue = queue[1:]
		mu.Unlock()
		b.make()
	}
}

// AllTests reports whether this test process runs all its tests and
// builds programs for them: no -run, -skip or -list filter, not -short.
// It reads the flags, so call it after flag.Parse.
func AllTests() bool {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}

// Run runs the tests of m and removes the binaries they built, returning
// the exit code for os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	wg.Wait() // a build queued for a test that never asked for it
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return code
}
