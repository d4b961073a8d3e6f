package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

func output(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

// A program is built once per package and flags, named after its package,
// and a build queued with Start is the one Build returns.
func TestBuildOnce(t *testing.T) {
	Start("./testdata/hello", "-ldflags=-X main.greeting=started")
	var wg sync.WaitGroup
	paths := make([]string, 4)
	for i := range paths {
		wg.Add(1)
		go func() { defer wg.Done(); paths[i] = Build(t, "./testdata/hello") }()
	}
	wg.Wait()
	for _, p := range paths[1:] {
		if p != paths[0] {
			t.Fatalf("built twice: %v", paths)
		}
	}
	if base := strings.TrimSuffix(filepath.Base(paths[0]), ".exe"); base != "hello" {
		t.Errorf("binary named %q, want hello", base)
	}
	if got := output(t, paths[0]); got != "hello" {
		t.Errorf("it says %q", got)
	}
	other := Build(t, "./testdata/hello", "-ldflags=-X main.greeting=started")
	if other == paths[0] || output(t, other) != "started" {
		t.Errorf("the build with other flags: %s says %q", other, output(t, other))
	}
	fi, err := os.Stat(other)
	if err != nil {
		t.Fatal(err)
	}
	if again := Build(t, "./testdata/hello", "-ldflags=-X main.greeting=started"); again != other {
		t.Errorf("asked again: %s, then %s", other, again)
	} else if fi2, _ := os.Stat(again); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Error("built again")
	}
}

// A build that fails fails the test that asked for it, with go build's
// words.
func TestBuildFails(t *testing.T) {
	var ft fakeT
	done := make(chan struct{})
	go func() {
		defer close(done)
		Build(&ft, "./testdata/broken")
	}()
	<-done
	if !ft.failed || !strings.Contains(ft.msg, "undefinedName") || !strings.Contains(ft.msg, "go build") {
		t.Errorf("failed %v: %q", ft.failed, ft.msg)
	}
}

// fakeT records a Fatal (which ends the goroutine, as a test's does).
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A build queued before a test moves the process to a folder outside the
// module (t.Chdir) is made there all the same: the background builder runs
// while such tests do.
func TestBuildAfterChdir(t *testing.T) {
	b, err := get("./testdata/hello", []string{"-ldflags=-X main.greeting=moved"})
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	b.make()
	if b.err != nil {
		t.Fatalf("go build after a chdir: %v\n%s", b.err, b.out)
	}
	if got := output(t, b.path); got != "moved" {
		t.Errorf("it says %q", got)
	}
}
