//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A shim whose stderr is a full pipe nobody reads, streaming spans to a
// collector that refuses them, still forwards, ends its server when the
// client closes stdin, and exits: its own lines (the span sink's report of
// what it could not deliver among them) never wait for stderr.
func testShimFullStderrOTLP(t *testing.T, bins shimBins) {
	er, ew, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer er.Close()
	// Fill the pipe (the reading end is never read) with raw writes, which
	// say EAGAIN once it is full (os.File's Write would wait instead); the
	// child gets the writing end blocking, as a client's pipe is (exec
	// takes its Fd, which makes it so).
	rc, err := ew.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	filled := 0
	chunk := make([]byte, 4096)
	rc.Write(func(fd uintptr) bool {
		for {
			n, err := syscall.Write(int(fd), chunk)
			if err != nil || n <= 0 {
				return true
			}
			filled += n
		}
	})
	if filled == 0 {
		t.Fatal("could not fill the stderr pipe")
	}
	cmd := exec.Command(bins.shim, "--otlp-endpoint", "http://127.0.0.1:1/v1/traces", "--", bins.server, "-mode", "cat")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = ew
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ew.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	out := bufio.NewReader(stdout)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n",
	} {
		if _, err := stdin.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		got, err := out.ReadString('\n')
		if err != nil || got != line {
			t.Fatalf("read back %q (%v), want %q", got, err, line)
		}
	}
	stdin.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the shim exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the shim never exited: its stderr is full")
	}
}
