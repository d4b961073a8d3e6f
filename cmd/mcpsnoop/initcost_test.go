package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxOwnInitBytes bounds what any one of mcpsnoop's own packages may
// allocate at init. Every package's init runs at every start, and a client
// with ten servers starts ten shims: work that only some commands need
// (compiling patterns, loading schemas) waits for first use. The figure is
// an allocation count, the same on any machine, not a time.
const maxOwnInitBytes = 64 << 10

// TestOwnPackagesInitLight reads the runtime's init trace of a start of
// the built binary and holds each mcpsnoop package to maxOwnInitBytes.
func TestOwnPackagesInitLight(t *testing.T) {
	cmd := exec.Command(mcpsnoopBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpsnoop version: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[10] != "allocs" || !strings.HasPrefix(f[1], "github.com/mcpsnoop/mcpsnoop") {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		if n > maxOwnInitBytes {
			t.Errorf("%s allocates %d bytes at init (at most %d): do that work on first use", f[1], n, maxOwnInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace of mcpsnoop's packages in:\n%s", stderr.String())
	}
}
