//go:build e2e

package wintest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// requireEnv set to 1 makes a missing prerequisite (wine64, mingw-w64)
// fail a test rather than skip it, as .ci/run runs this package.
const requireEnv = "MCPSNOOP_E2E_REQUIRE"

// wine is a wine prefix of the tests' own with the programs built for it.
type wine struct {
	loader, server string // wine64 and wineserver
	root           string // the temporary folder holding all of it
	bin            string // the programs' folder, whose name holds a space
	env            []string
	user           string // the Windows user's folder under drive_c/users
}

var (
	setupOnce sync.Once
	shared    *wine
	setupErr  error
	missingIs string // the prerequisite that is missing, if any
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	os.Exit(code)
}

// setup builds the programs and the wine prefix once per test process.
func setup(t *testing.T) *wine {
	t.Helper()
	setupOnce.Do(func() { shared, setupErr = newWine() })
	if missingIs != "" {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s (%s=1: a missing prerequisite fails the test)", missingIs, requireEnv)
		}
		t.Skip(missingIs)
	}
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return shared
}

// findTool is the first of names found in PATH or at an absolute path.
func findTool(names ...string) string {
	for _, n := range names {
		if filepath.IsAbs(n) {
			if info, err := os.Stat(n); err == nil && !info.IsDir() {
				return n
			}
			continue
		}
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func newWine() (*wine, error) {
	w := &wine{
		// Debian's wine64 package puts its loader under /usr/lib/wine;
		// the wine package adds wrappers in PATH.
		loader: findTool("wine64", "/usr/lib/wine/wine64"),
		server: findTool("wineserver", "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"),
	}
	gcc := findTool("x86_64-w64-mingw32-gcc")
	switch {
	case w.loader == "" || w.server == "":
		missingIs = "wine64 is not installed (apt-get install wine64): the Windows build cannot be run here"
		return nil, nil
	case gcc == "":
		missingIs = "x86_64-w64-mingw32-gcc is not installed (apt-get install gcc-mingw-w64-x86-64): the stand-in bcryptprimitives.dll cannot be built"
		return nil, nil
	}
	root, err := os.MkdirTemp("", "mcpsnoop-wine-")
	if err != nil {
		return nil, err
	}
	w.root = root
	w.bin = filepath.Join(root, "mcpsnoop programs")
	if err := os.Mkdir(w.bin, 0o755); err != nil {
		return nil, err
	}
	prefix := filepath.Join(root, "prefix")
	w.env = wineEnv(prefix)
	if err := w.build(); err != nil {
		return w, err
	}
	if err := w.makePrefix(prefix, gcc); err != nil {
		return w, err
	}
	return w, nil
}

// wineEnv is the test process's environment for wine's programs, less
// what would choose mcpsnoop's folders for them.
func wineEnv(prefix string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MCPSNOOP_") || strings.HasPrefix(k, "XDG_") || k == "WINEPATH" || k == "WINEPREFIX" || k == "WINEDEBUG" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"WINEPREFIX="+prefix,
		"WINEDEBUG=-all",
		// No Mono or Gecko: nothing here needs them, and wine would
		// offer to download them.
		"WINEDLLOVERRIDES=mscoree,mshtml=",
	)
}

// build cross-compiles mcpsnoop, mcpsnoop-shim and the test server for
// Windows.
func (w *wine) build() error {
	for _, b := range []struct{ pkg, exe string }{
		{"github.com/mcpsnoop/mcpsnoop/cmd/mcpsnoop", "mcpsnoop.exe"},
		{"github.com/mcpsnoop/mcpsnoop/cmd/mcpsnoop-shim", "mcpsnoop-shim.exe"},
		{"./testdata/winserver", "winserver.exe"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(w.bin, b.exe), b.pkg)
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s for windows: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

// makePrefix creates the wine prefix and puts the stand-in
// bcryptprimitives.dll in its system32: Go's runtime loads ProcessPrng
// from there (system32 only), and wine 8.0 has no such DLL.
func (w *wine) makePrefix(prefix, gcc string) error {
	dll := filepath.Join(w.root, "bcryptprimitives.dll")
	src := filepath.Join("testdata", "bcryptprimitives")
	cc := exec.Command(gcc, "-shared", "-O2", "-o", dll,
		filepath.Join(src, "bcryptprimitives.c"), filepath.Join(src, "bcryptprimitives.def"), "-lbcrypt")
	if out, err := cc.CombinedOutput(); err != nil {
		return fmt.Errorf("building the stand-in bcryptprimitives.dll: %v\n%s", err, out)
	}
	boot := exec.Command(w.loader, "wineboot", "--init")
	boot.Env = w.env
	if out, err := boot.CombinedOutput(); err != nil {
		return fmt.Errorf("wineboot --init: %v\n%s", err, out)
	}
	// wineboot returns before the prefix is written out; wineserver -w
	// waits until every process of the prefix has exited.
	wait := exec.Command(w.server, "-w")
	wait.Env = w.env
	if out, err := wait.CombinedOutput(); err != nil {
		return fmt.Errorf("wineserver -w: %v\n%s", err, out)
	}
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	data, err := os.ReadFile(dll)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(sys32, "bcryptprimitives.dll"), data, 0o644); err != nil {
		return fmt.Errorf("the prefix has no system32 (%v)", err)
	}
	users, err := os.ReadDir(filepath.Join(prefix, "drive_c", "users"))
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.IsDir() && u.Name() != "Public" {
			w.user = filepath.Join(prefix, "drive_c", "users", u.Name())
		}
	}
	if w.user == "" {
		return fmt.Errorf("the prefix has no user folder")
	}
	return nil
}

// stop ends every process left in the prefix and removes it all.
func (w *wine) stop() {
	if w.root == "" {
		return
	}
	if w.server != "" {
		kill := exec.Command(w.server, "-k")
		kill.Env = w.env
		_ = kill.Run()
		wait := exec.Command(w.server, "-w")
		wait.Env = w.env
		_ = wait.Run()
	}
	os.RemoveAll(w.root)
}

// win is a Linux path as wine's programs name it (wine maps / to Z:).
func win(path string) string {
	return "Z:" + strings.ReplaceAll(path, "/", `\`)
}

// exe is the Windows path of one of the built programs.
func (w *wine) exe(name string) string { return win(filepath.Join(w.bin, name)) }

// command runs a Windows program (a path as Windows names it) under wine.
func (w *wine) command(prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(w.loader, append([]string{prog}, args...)...)
	cmd.Env = w.env
	return cmd
}

// run runs a Windows program to its end and returns its stdout, stderr
// and exit code; a program that does not end within two minutes fails
// the test.
func (w *wine) run(t *testing.T, stdin string, env []string, prog string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := w.command(prog, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Env = append(append([]string{}, w.env...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %q did not end: %s", prog, args, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", prog, args, err)
	}
	return out.String(), errb.String(), code
}

// gone waits up to 30 s for each process (Windows ids) to end, through
// winserver gone, and returns those still running.
func (w *wine) gone(t *testing.T, pids ...string) []string {
	t.Helper()
	out, errOut, code := w.run(t, "", nil, w.exe("winserver.exe"), append([]string{"gone", "30"}, pids...)...)
	if code > 1 {
		t.Fatalf("winserver gone: exit %d: %s", code, errOut)
	}
	var alive []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if pid, ok := strings.CutPrefix(l, "alive "); ok {
			alive = append(alive, pid)
		}
	}
	return alive
}

// running reports whether each process (Windows ids) runs now.
func (w *wine) running(t *testing.T, pids ...string) bool {
	t.Helper()
	out, _, code := w.run(t, "", nil, w.exe("winserver.exe"), append([]string{"gone", "0"}, pids...)...)
	return code == 1 && strings.Count(out, "alive ") == len(pids)
}
