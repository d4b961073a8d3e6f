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
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
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
)

type build struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// Build returns the path of the program in the package directory pkg (as
// go build takes it, relative to the test's working directory) built with
// the go build flags given, building it on the first call for that package
// and those flags. A failed build fails the test, with go build's output.
func Build(t testing.TB, pkg string, flags ...string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	key := abs + "\x00" + strings.Join(flags, "\x00")
	mu.Lock()
	if dir == "" && dirErr == nil {
		dir, dirErr = os.MkdirTemp("", "mcpsnoop-testbin-")
	}
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	d, derr := dir, dirErr
	mu.Unlock()
	if derr != nil {
		t.Fatal(derr)
	}
	b.once.Do(func() {
		// Named after its package, as go build names it (tests may read
		// the name: a shim's default label is its server's), in a folder
		// of its own.
		sum := sha256.Sum256([]byte(key))
		sub := filepath.Join(d, hex.EncodeToString(sum[:8]))
		if b.err = os.Mkdir(sub, 0o755); b.err != nil {
			return
		}
		b.path = filepath.Join(sub, filepath.Base(abs))
		if runtime.GOOS == "windows" {
			b.path += ".exe"
		}
		args := append(append([]string{"build", "-o", b.path}, flags...), abs)
		b.out, b.err = exec.Command("go", args...).CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build %s %s: %v\n%s", strings.Join(flags, " "), pkg, b.err, b.out)
	}
	return b.path
}

// Run runs the tests of m and removes the binaries they built, returning
// the exit code for os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return code
}
