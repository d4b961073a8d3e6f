package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// shimBinaryName is the shim's own binary (cmd/mcpsnoop-shim), shipped
// beside mcpsnoop in every archive and npm package.
const shimBinaryName = "mcpsnoop-shim"

// shimBeside is the mcpsnoop-shim installed in the folder of the mcpsnoop
// binary at path, when it is there and of this mcpsnoop's version; "" and
// why not otherwise ("" when there is none: a go install of mcpsnoop
// alone, a development build). Clients start one shim per server on every
// launch, so they should run the small binary; but one left over from
// another release could behave differently from the mcpsnoop that wrote
// the entry, so its version is asked, not assumed.
func shimBeside(path string) (shim, why string) {
	exe := shimBinaryName
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	p := filepath.Join(filepath.Dir(path), exe)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s does not run (%v)", p, err)
	}
	got := strings.TrimSpace(string(out))
	if want := shimBinaryName + " " + appVersion(); got != want {
		return "", fmt.Sprintf("%s says %q, not %q", p, got, want)
	}
	return p, ""
}
