//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teeReadCloser and teeWriteCloser keep what the client read and wrote.
type teeReadCloser struct {
	r   io.ReadCloser
	mu  *sync.Mutex
	got *bytes.Buffer
}

func (t teeReadCloser) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.mu.Lock()
	t.got.Write(p[:n])
	t.mu.Unlock()
	return n, err
}

func (t teeReadCloser) Close() error { return t.r.Close() }

type teeWriteCloser struct {
	w    io.WriteCloser
	mu   *sync.Mutex
	sent *bytes.Buffer
}

func (t teeWriteCloser) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.sent.Write(p)
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t teeWriteCloser) Close() error { return t.w.Close() }

// A go-sdk client speaking 2025-11-25 to a go-sdk server process through the
// shim binary: tool calls with non-ASCII and HTML-special text, a result
// much larger than a pipe, and a server-to-client elicitation request.
// Each side receives exactly the bytes the other sent, the log holds every
// message in wire order, and check passes on it.
func testShimSDKByteExact(t *testing.T, bins shimBins) {
	home, dir := t.TempDir(), t.TempDir()
	teeIn, teeOut := filepath.Join(dir, "server-in"), filepath.Join(dir, "server-out")
	cmd := exec.Command(bins.shim, "--", bins.server, "-tee-in", teeIn, "-tee-out", teeOut)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent, got bytes.Buffer
	transport := &mcp.IOTransport{
		Reader:        teeReadCloser{stdout, &mu, &got},
		Writer:        teeWriteCloser{stdin, &mu, &sent},
		MaxLineLength: -1,
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "shim-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"text": "héllo <b>&</b> \u2028 \"q\""}, "héllo <b>&</b> \u2028 \"q\""},
		{"big", map[string]any{"size": 300_000}, strings.Repeat("0123456789abcdef", 300_000/16+1)[:300_000]},
		{"ask", map[string]any{"text": "Proceed?"}, "user said accept"},
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\nstderr:\n%s", c.name, err, res, stderr.String())
		}
		if txt := res.Content[0].(*mcp.TextContent).Text; txt != c.want {
			t.Fatalf("%s: got %.80q", c.name, txt)
		}
	}
	cs.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shim: %v\nstderr:\n%s", err, stderr.String())
	}

	serverIn, _ := os.ReadFile(teeIn)
	serverOut, _ := os.ReadFile(teeOut)
	mu.Lock()
	defer mu.Unlock()
	if !bytes.Equal(serverIn, sent.Bytes()) {
		t.Fatalf("the server read %d bytes, the client wrote %d; they differ", len(serverIn), sent.Len())
	}
	if !bytes.Equal(got.Bytes(), serverOut) {
		t.Fatalf("the client read %d bytes, the server wrote %d; they differ", got.Len(), len(serverOut))
	}

	frames := readFrames(t, sessionLog(t, home))
	sameLines(t, "c2s", rawOf(frames, capture.ClientToServer), compactLines(t, serverIn))
	sameLines(t, "s2c", rawOf(frames, capture.ServerToClient), compactLines(t, serverOut))
	if answers := checkWireOrder(t, frames); answers < 6 {
		t.Errorf("only %d answers logged", answers)
	}
	var meta capture.SessionMeta
	if err := json.Unmarshal(frames[0].Raw, &meta); err != nil || meta.Command[0] != bins.server || meta.PPID != os.Getpid() || meta.Cwd == "" {
		t.Errorf("meta = %s (%v)", frames[0].Raw, err)
	}
	if frames[0].ServerLabel != "sdkserver" || !strings.HasPrefix(frames[0].SessionID, "sdkserver-") {
		t.Errorf("label %q session %q", frames[0].ServerLabel, frames[0].SessionID)
	}
	sawStderr := false
	for _, fr := range frames {
		if fr.Direction == capture.Stderr && fr.Text == "sdkserver: starting in mode sdk" {
			sawStderr = true
		}
	}
	if !sawStderr || !strings.Contains(stderr.String(), "sdkserver: starting in mode sdk") {
		t.Errorf("the server's stderr was not both passed through and logged:\n%s", stderr.String())
	}
	if code, out := checkLog(t, sessionLog(t, home)); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// The go-sdk client launches the shim itself (CommandTransport) and
// speaks 2026-07-28 with a multi-round-trip elicitation: the log matches
// what the server read and wrote, message for message, in wire order, and
// check links the retries into one three-round-trip interaction.
func testShimSDKMRTR(t *testing.T, bins shimBins) {
	home, dir := t.TempDir(), t.TempDir()
	teeIn, teeOut := filepath.Join(dir, "server-in"), filepath.Join(dir, "server-out")
	cmd := exec.Command(bins.shim, "--label", "booking", "--", bins.server, "-tee-in", teeIn, "-tee-out", teeOut)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book", Arguments: map[string]any{"text": "JFK"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "booked JFK" {
		t.Fatalf("book: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("shim state %v", cmd.ProcessState)
	}

	serverIn, _ := os.ReadFile(teeIn)
	serverOut, _ := os.ReadFile(teeOut)
	log := sessionLog(t, home)
	frames := readFrames(t, log)
	sameLines(t, "c2s", rawOf(frames, capture.ClientToServer), compactLines(t, serverIn))
	sameLines(t, "s2c", rawOf(frames, capture.ServerToClient), compactLines(t, serverOut))
	checkWireOrder(t, frames)
	if frames[0].ServerLabel != "booking" || !strings.HasPrefix(filepath.Base(log), "booking-") {
		t.Errorf("label %q, log %s", frames[0].ServerLabel, log)
	}

	report := filepath.Join(dir, "check.json")
	if code, out := checkLog(t, "--json", report, log); code != 0 {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	var doc struct {
		Sessions []struct {
			Interactions []struct {
				Name       string `json:"name"`
				RoundTrips int    `json:"round_trips"`
				Outcome    string `json:"outcome"`
			} `json:"interactions"`
		} `json:"sessions"`
	}
	data, _ := os.ReadFile(report)
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Sessions) != 1 || len(doc.Sessions[0].Interactions) != 1 {
		t.Fatalf("report: %v\n%s", err, data)
	}
	if it := doc.Sessions[0].Interactions[0]; it.Name != "book" || it.RoundTrips != 3 || it.Outcome != "completed" {
		t.Errorf("interaction = %+v", it)
	}
}

// 1,000 requests written back to back, without waiting for answers, while
// the server answers them concurrently: every answer is logged after its
// request, nothing is lost, and check passes.
func testShimPipelined(t *testing.T, bins shimBins) {
	const n = 1000
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server)
	p.send(initialize2025)
	p.readLine()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	go func() {
		w := bufio.NewWriter(p.stdin)
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}`+"\n", i+2, i)
		}
		w.Flush()
	}()
	seen := map[string]bool{}
	for range n {
		var m rpcEnvelope
		line := p.readLine()
		if err := json.Unmarshal([]byte(line), &m); err != nil || len(m.Result) == 0 {
			t.Fatalf("answer %q: %v", line, err)
		}
		seen[string(m.ID)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct answers", len(seen))
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	if answers := checkWireOrder(t, frames); answers != n+1 {
		t.Errorf("%d answers logged, want %d", answers, n+1)
	}
	if c2s := len(rawOf(frames, capture.ClientToServer)); c2s != n+2 {
		t.Errorf("%d client frames logged, want %d", c2s, n+2)
	}
	if code, out := checkLog(t, sessionLog(t, home)); code != 0 || !strings.Contains(out, "missing_frames=0") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}
