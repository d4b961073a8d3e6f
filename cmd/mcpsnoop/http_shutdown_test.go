//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SIGTERM ends `mcpsnoop http` promptly even while a client holds an
// upgraded connection (101 Switching Protocols to a POST), which
// http.Server.Shutdown neither waits for nor closes; the client's
// connection is closed and the log still ends complete.
func TestHTTPCommandShutdownWithUpgradedConnection(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.ReadAll(req.Body)
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: mcp-test\r\n\r\n")
		brw.Flush()
		io.Copy(conn, brw) // echoes until a side closes
	}))
	defer target.Close()
	h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "127.0.0.1:0", "--label", "upgrade")

	conn, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(15 * time.Second))
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: mcp-test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	io.WriteString(conn, "ping")
	echo := make([]byte, 4)
	if _, err := io.ReadFull(br, echo); err != nil || string(echo) != "ping" {
		t.Fatalf("echo %q %v", echo, err)
	}

	// stop's wait is bounded: an upgraded connection that held the
	// shutdown up for good fails it.
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, h.stderr.String())
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Errorf("the client's upgraded connection was left open: %v", err)
	}
	if strings.Contains(h.stderr.String(), "dropped") {
		t.Errorf("log incomplete:\n%s", h.stderr.String())
	}
	fs := httpLogFrames(t, home)
	if len(fs) != 2 || string(fs[0].Raw) != body || fs[1].Status != http.StatusSwitchingProtocols {
		t.Errorf("%d frames: %+v", len(fs), fs)
	}
}

// A log that is a FIFO nobody reads does not keep `mcpsnoop http` from
// ending on SIGTERM: closing the log waits capture.CloseTimeout at most,
// and the frames that did not get out are reported lost.
func TestHTTPCommandEndsWhenTheLogStalls(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	fifo := makeFIFO(t, "log.fifo")
	// A reading end that never reads: the proxy's open does not wait, and
	// its writes stop once the pipe is full. Closing it at the end fails
	// the write still stuck.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer target.Close()
	h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "127.0.0.1:0", "--label", "fifo", "--trace-file", fifo)
	// 40 requests of 10 KB: far more than the pipe holds.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"` + strings.Repeat("x", 10<<10) + `"}}`
	for range 40 {
		resp, err := http.Post("http://"+h.addr+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, h.stderr.String())
	}
	if !regexp.MustCompile(`mcpsnoop http: [1-9][0-9]* frame\(s\) were dropped from the log .*log\.fifo; it is incomplete`).MatchString(h.stderr.String()) {
		t.Errorf("no loss reported:\n%s", h.stderr.String())
	}
}

// stallingWriter passes writes on until stall is closed, then blocks every
// write until release is: a stderr pipe nobody reads any more.
type stallingWriter struct {
	w              io.Writer
	stall, release chan struct{}
	stalledOnce    sync.Once
	releaseOnce    sync.Once
}

func (s *stallingWriter) Write(p []byte) (int, error) {
	select {
	case <-s.stall:
		<-s.release
	default:
	}
	return s.w.Write(p)
}

// A SIGTERM shuts mcpsnoop http down even when its stderr has stopped
// taking writes: what it says on the way out never waits for stderr.
func TestHTTPCommandShutsDownWithAStalledStderr(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer target.Close()
	sw := &stallingWriter{stall: make(chan struct{}), release: make(chan struct{})}
	defer sw.releaseOnce.Do(func() { close(sw.release) })
	h := startHTTPWith(t, func(w io.Writer) io.Writer { sw.w = w; return sw },
		"--target", target.URL+"/mcp", "--listen", "127.0.0.1:0", "--label", "stall")
	resp, err := http.Post("http://"+h.addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sw.stalledOnce.Do(func() { close(sw.stall) })
	h.sigs <- syscall.SIGTERM
	select {
	case code := <-h.done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("mcpsnoop http did not shut down while its stderr took no writes")
	}
}
