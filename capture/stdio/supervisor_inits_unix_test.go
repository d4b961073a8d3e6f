//go:build unix

package stdio

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture/stdio/internal/supervise"
)

// TestSupervisorInitsFirst runs this test binary as a supervisor with
// GODEBUG=inittrace=1 and checks that it started the server having
// initialised none of what only the shim needs: no package of this module
// or the libraries capture links, and not unicode or reflect, which a
// supervise package importing strings (or anything heavier) would wait
// for, with every package that sorts before it (in mcpsnoop, the JSON
// schema compiler, the terminal UI and protocol buffers among them).
// Each supervisor is one per session: what it initialises it holds for
// the session's life.
func TestSupervisorInitsFirst(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to supervise")
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], truePath, "true")
	cmd.Env = append(os.Environ(), supervise.Env+"=1", "GODEBUG=inittrace=1")
	cmd.ExtraFiles = []*os.File{lifeR, statW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // it ends its group if the lifeline goes
	var trace strings.Builder
	cmd.Stderr = &trace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	closeAll(lifeR, statW)
	status, _ := bufio.NewReader(statR).ReadString('\n')
	statR.Close()
	werr := cmd.Wait()
	lifeW.Close()
	if status != "ok\n" || werr != nil {
		t.Fatalf("supervisor said %q and ended with %v; stderr:\n%s", status, werr, trace.String())
	}
	var inited []string
	for _, line := range strings.Split(trace.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inited = append(inited, f[1])
		}
	}
	if len(inited) == 0 {
		t.Fatalf("no init trace from the supervisor; stderr:\n%s", trace.String())
	}
	for _, p := range inited {
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") || p == "unicode" || p == "reflect" {
			t.Errorf("the supervisor initialised %s before it started the server: its package must import only os, os/signal, syscall and what they import (supervise's package comment says why); it initialised %s", p, strings.Join(inited, " "))
		}
	}
}
