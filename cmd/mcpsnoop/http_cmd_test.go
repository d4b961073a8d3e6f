//go:build unix

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// httpRun is `mcpsnoop http`, `bridge` or `mock` running in the test's
// process: its address, a way to signal it, and its exit.
type httpRun struct {
	addr   string
	sigs   chan os.Signal
	stderr *lockedBuffer
	done   chan int
}

func startHTTP(t *testing.T, args ...string) *httpRun {
	t.Helper()
	return startHTTPWith(t, nil, args...)
}

// startHTTPWith is startHTTP with stderr going through wrap (nil: straight
// to h.stderr).
func startHTTPWith(t *testing.T, wrap func(io.Writer) io.Writer, args ...string) *httpRun {
	t.Helper()
	return startServing(t, wrap, append([]string{"http"}, args...)...)
}

// startServing runs the command (http, bridge or mock) with args until it
// says where it listens.
func startServing(t *testing.T, wrap func(io.Writer) io.Writer, args ...string) *httpRun {
	t.Helper()
	h := &httpRun{sigs: make(chan os.Signal, 2), stderr: &lockedBuffer{}, done: make(chan int, 1)}
	var stderr io.Writer = h.stderr
	if wrap != nil {
		stderr = wrap(h.stderr)
	}
	listening := make(chan net.Addr, 1)
	httpSignals = func() (<-chan os.Signal, func()) { return h.sigs, func() {} }
	httpListening = func(a net.Addr) { listening <- a }
	t.Cleanup(func() {
		httpSignals, httpListening = defaultHTTPSignals, nil
	})
	go func() {
		h.done <- run(args, strings.NewReader(""), io.Discard, stderr)
	}()
	select {
	case a := <-listening:
		h.addr = a.String()
	case code := <-h.done:
		t.Fatalf("mcpsnoop %s exited %d:\n%s", args[0], code, h.stderr.String())
	case <-time.After(time.Minute): // a hang, not a timing
		t.Fatalf("mcpsnoop %s did not start listening", args[0])
	}
	return h
}

var defaultHTTPSignals = httpSignals

// stop sends SIGTERM and waits for the exit code.
func (h *httpRun) stop(t *testing.T) int {
	t.Helper()
	h.sigs <- syscall.SIGTERM
	select {
	case code := <-h.done:
		return code
	case <-time.After(time.Minute): // a hang, not a timing
		t.Fatalf("mcpsnoop did not shut down:\n%s", h.stderr.String())
	}
	return -1
}

// httpLogFrames reads the one log in the state directory: the frames
// after its meta frame (httpMeta).
func httpLogFrames(t *testing.T, home string) []capture.Frame {
	t.Helper()
	_, frames := httpMeta(t, httpLogAll(t, home))
	return frames
}

// httpLogAll reads every frame of the one log in the state directory.
func httpLogAll(t *testing.T, home string) []capture.Frame {
	t.Helper()
	path := sessionLog(t, home)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd := capture.NewReader(bytes.NewReader(data), path)
	var out []capture.Frame
	for {
		f, _, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f.Clone())
	}
}

func TestHTTPCommandUsage(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"http"}, "mcpsnoop http: --target is required"},
		{[]string{"http", "--target", "127.0.0.1:8080"}, `invalid target URL "127.0.0.1:8080"`},
		{[]string{"http", "--target", "ftp://127.0.0.1/mcp"}, "the scheme must be http or https"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "--label", "a/b"}, "contains a slash"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "--redact-value", "("}, "invalid redact pattern"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "--listen", busy.Addr().String()}, "address already in use"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "extra"}, "unknown command"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// The http command end to end: faults a target can show, each logged as
// it happened, and a shutdown that ends an open event stream and leaves
// the log complete.
func TestHTTPCommandFaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	const reply = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"zipped"}]}}`
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		switch req.Header.Get("X-Fault") {
		case "gzip":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, reply)
			zw.Close()
		case "401":
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "403":
			http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`+"\n\n")
			w.(http.Flusher).Flush()
			<-req.Context().Done()
		}
	}))
	defer target.Close()
	// The proxy lets evil.example's Origin through (--allow-origin), so
	// the server's own 403 for it is what the log records.
	h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "127.0.0.1:0", "--label", "faults", "--allow-origin", "https://evil.example")
	url := "http://" + h.addr + "/mcp"
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	post := func(fault, body string, header ...string) (*http.Response, []byte) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("X-Fault", fault)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}

	resp, got := post("gzip", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zip"}}`, "Accept-Encoding", "gzip")
	if zr, err := gzip.NewReader(bytes.NewReader(got)); err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("the client did not get the gzip bytes: %v %q", err, got)
	} else if plain, _ := io.ReadAll(zr); string(plain) != reply {
		t.Errorf("decoded %q", plain)
	}
	if resp, _ := post("401", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != 401 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if resp, _ := post("403", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Origin", "https://evil.example", "Authorization", "Bearer sEcReT"); resp.StatusCode != 403 {
		t.Errorf("status %d", resp.StatusCode)
	}

	// A client that hangs up in the middle of an event stream.
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stream"}}`))
	req.Header.Set("X-Fault", "sse")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(resp.Body).ReadString('\n'); !strings.Contains(line, "notifications/message") {
		t.Errorf("first line %q", line)
	}
	resp.Body.Close()

	// A GET stream still open at shutdown does not hold it up.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	greq, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	greq.Header.Set("X-Fault", "sse")
	gresp, err := client.Do(greq)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(gresp.Body).ReadString('\n')
	// stop's wait is bounded: a GET stream that held the shutdown up for
	// good fails it.
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, h.stderr.String())
	}
	gresp.Body.Close()

	stderr := h.stderr.String()
	for _, want := range []string{"mcpsnoop http: listening on " + h.addr, "forwarding to " + target.URL + "/mcp", "mcpsnoop http: logging to ", "(session faults-", "SIGTERM: shutting down"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	frames := httpLogFrames(t, home)
	var got2 []string
	for _, f := range frames {
		got2 = append(got2, frameSummary(f))
		if f.ServerLabel != "faults" || f.Transport != capture.TransportHTTP {
			t.Errorf("frame %d: label %q transport %q", f.Seq, f.ServerLabel, f.Transport)
		}
	}
	want := []string{
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zip"}}`,
		`s2c 200 ` + reply,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`s2c 401 reply_to:2`,
		`c2s {"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`s2c 403 text:Forbidden: Origin not allowed reply_to:3`,
		`c2s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stream"}}`,
		`s2c 200 {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`,
		`s2c 200 {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`,
	}
	if strings.Join(got2, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got2, "\n"), strings.Join(want, "\n"))
	}
	if len(frames) == len(want) {
		if frames[3].AuthChallenge != `Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"` {
			t.Errorf("challenge %q", frames[3].AuthChallenge)
		}
		if frames[4].Origin != "https://evil.example" {
			t.Errorf("origin %q", frames[4].Origin)
		}
	}
	for _, f := range frames {
		if strings.Contains(string(f.Raw)+f.Text+f.AuthChallenge, "sEcReT") {
			t.Errorf("frame %d holds the Authorization header", f.Seq)
		}
	}
}

// A target that is down: the client gets 502 and the log has the request
// and the 502 that answered it.
func TestHTTPCommandTargetDown(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	h := startHTTP(t, "--target", down.URL, "--listen", "127.0.0.1:0")
	resp, err := http.Post("http://"+h.addr+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d", resp.StatusCode)
	}
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	frames := httpLogFrames(t, home)
	if len(frames) != 2 || frameSummary(frames[0]) != `c2s {"jsonrpc":"2.0","id":9,"method":"tools/list"}` || frameSummary(frames[1]) != `s2c 502 reply_to:9` {
		var s []string
		for _, f := range frames {
			s = append(s, frameSummary(f))
		}
		t.Errorf("log:\n%s", strings.Join(s, "\n"))
	}
	if label := strings.TrimPrefix(down.URL, "http://"); len(frames) > 0 && frames[0].ServerLabel != label {
		t.Errorf("label %q, want the target's host %q", frames[0].ServerLabel, label)
	}
	if !strings.Contains(h.stderr.String(), "mcpsnoop http: POST /: ") {
		t.Errorf("stderr:\n%s", h.stderr.String())
	}
	// The file is named after the portable form of the host:port label.
	if base, want := filepath.Base(sessionLog(t, home)), strings.ReplaceAll(strings.TrimPrefix(down.URL, "http://"), ":", "_")+"-"; !strings.HasPrefix(base, want) {
		t.Errorf("log %s, want it to start %s", base, want)
	}
}

// --log-dir puts the proxy's log in a folder of its own, created, relative
// to the working directory; the client's path reaches stderr escaped.
func TestHTTPCommandLogDir(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	h := startHTTP(t, "--target", down.URL, "--listen", "127.0.0.1:0", "--log-dir", "artifacts/http", "--max-log-size", "1MiB")
	resp, err := http.Post("http://"+h.addr+"/%1b[31mred%0a::error::forged", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	logs, _ := filepath.Glob(filepath.Join(work, "artifacts", "http", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs: %v\n%s", logs, h.stderr.String())
	}
	if s := h.stderr.String(); strings.Contains(s, "\x1b") || strings.Contains(s, "\n::error::") || !strings.Contains(s, `POST /\x1b[31mred\n::error::forged: `) {
		t.Errorf("stderr:\n%q", s)
	}
}

// frameSummary is a frame in a line: direction, status, raw or text,
// reply_to.
func frameSummary(f capture.Frame) string {
	s := f.Direction
	if f.Status != 0 {
		s += " " + strconv.Itoa(f.Status)
	}
	switch {
	case len(f.Raw) > 0:
		s += " " + string(f.Raw)
	case f.Text != "":
		s += " text:" + f.Text
	}
	if len(f.ReplyTo) > 0 {
		s += " reply_to:" + string(f.ReplyTo)
	}
	return s
}
