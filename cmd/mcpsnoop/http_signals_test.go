//go:build unix

package main

import (
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// A supervisor (a test harness, a CI script) starts `mcpsnoop http`,
// waits for the line saying where it listens, and may stop it at once: the
// signal must find the proxy's handler already in place, so that it exits
// 0 with a log that holds its meta frame, rather than dying of SIGTERM
// with an empty log.
func TestHTTPCommandSignalsAreTakenBeforeItListens(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM // arrives as soon as the proxy says it listens
	taken, heard := false, false
	httpSignals = func() (<-chan os.Signal, func()) { taken = true; return sigs, func() {} }
	httpListening = func(net.Addr) {
		heard = true
		if !taken {
			t.Error("mcpsnoop http said where it listens before it took SIGINT and SIGTERM: a supervisor's signal would kill it")
		}
	}
	t.Cleanup(func() { httpSignals, httpListening = defaultHTTPSignals, nil })
	var stderr lockedBuffer
	code := run([]string{"http", "--target", "http://127.0.0.1:1/mcp", "--listen", "127.0.0.1:0", "--label", "early"}, strings.NewReader(""), io.Discard, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, stderr.String())
	}
	if !heard {
		t.Error("mcpsnoop http never said where it listens")
	}
	frames := httpLogAll(t, home)
	if len(frames) != 1 || frames[0].Direction != capture.Meta {
		t.Errorf("the log holds %d frames, want its meta frame alone: %+v", len(frames), frames)
	}
}
