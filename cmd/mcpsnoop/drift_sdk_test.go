package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder sits between a real MCP client and server, forwarding every line
// unchanged and logging each one as a frame, in wire order, before it is
// forwarded. (The stdio shim will do this for real processes; here both
// peers run in the test so the log can be compared with what they sent.)
type recorder struct {
	mu    sync.Mutex
	out   *os.File
	seq   uint64
	sid   string
	label string
}

func (r *recorder) record(dir string, line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	f := capture.Frame{SessionID: r.sid, ServerLabel: r.label, Seq: r.seq, TS: time.Now(), Direction: dir, Transport: capture.TransportStdio}
	var compact bytes.Buffer
	if json.Compact(&compact, bytes.TrimRight(line, "\r\n")) == nil {
		f.Raw = compact.Bytes()
	} else {
		f.Text = string(bytes.TrimRight(line, "\r\n"))
	}
	data, _ := json.Marshal(f)
	r.out.Write(append(data, '\n'))
}

// pump copies lines from src to dst, recording each first.
func (r *recorder) pump(dir string, src io.Reader, dst io.WriteCloser) {
	defer dst.Close()
	br := bufio.NewReader(src)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			r.record(dir, line)
			if _, werr := dst.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// captureSession runs a real go-sdk client against server through a
// recorder and writes the session log to path.
func captureSession(t *testing.T, path, sid, label string, server *mcp.Server, client *mcp.Client, use func(context.Context, *mcp.ClientSession)) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	rec := &recorder{out: out, sid: sid, label: label}
	cr, cw := io.Pipe()   // client -> recorder
	sr, sw := io.Pipe()   // recorder -> server
	sr2, sw2 := io.Pipe() // server -> recorder
	cr2, cw2 := io.Pipe() // recorder -> client
	go rec.pump(capture.ClientToServer, cr, sw)
	go rec.pump(capture.ServerToClient, sr2, cw2)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := server.Connect(ctx, &mcp.IOTransport{Reader: sr, Writer: sw2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, nil)
	}
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr2, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	use(ctx, cs)
	cs.Close()
	ss.Wait()
}

type deleteArgs struct {
	Path string `json:"path" jsonschema:"the file to delete"`
}

// fileServer builds the server; destructive is what its delete_file tool
// declares in destructiveHint.
func fileServer(destructive bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "delete_file",
		Description: "Delete a file in the workspace",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive},
	}, func(ctx context.Context, req *mcp.CallToolRequest, args deleteArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + args.Path}}}, nil, nil
	})
	return s
}

func listAndCall(t *testing.T) func(context.Context, *mcp.ClientSession) {
	return func(ctx context.Context, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "tmp.txt"}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
}

// A server whose second build turns a tool destructive is caught by the
// drift gate once the first build's definitions are the baseline.
func TestDriftWithRealServer(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	first := filepath.Join(dir, "first.jsonl")
	second := filepath.Join(dir, "second.jsonl")
	captureSession(t, first, "files-1-aaaaaaaaaaaa", "files", fileServer(false), nil, listAndCall(t))
	captureSession(t, second, "files-2-bbbbbbbbbbbb", "files", fileServer(true), nil, listAndCall(t))
	baselines := filepath.Join(dir, "baselines")

	steps := []struct {
		args []string
		code int
		want []string
	}{
		// An empty baseline folder: the gate can only record, so it fails and
		// says what to keep.
		{[]string{"check", "--fail-on", "drift", "--baseline", filepath.Join(dir, "fresh"), first}, 1,
			[]string{"recorded first-seen tool baseline (trusted, not verified)", "nothing was verified", "check failed: drift"}},
		{[]string{"baseline", "--baseline", baselines, first}, 0, []string{"created first-seen tool baseline"}},
		{[]string{"check", "--fail-on", "drift", "--baseline", baselines, first}, 0, []string{"check passed"}},
		{[]string{"check", "--fail-on", "drift", "--baseline", baselines, second}, 1,
			[]string{"definition drift:", "  annotations changed: delete_file", "check failed: drift"}},
		{[]string{"baseline", "--baseline", baselines, second}, 1, []string{"annotations changed: delete_file"}},
		{[]string{"baseline", "--accept", "--baseline", baselines, second}, 0, []string{"accepted baseline for files"}},
		{[]string{"check", "--fail-on", "drift", "--baseline", baselines, second}, 0, []string{"check passed"}},
		{[]string{"baseline", "--reset", "--baseline", baselines, second}, 0, []string{"reset baseline for files"}},
		{[]string{"baseline", "--accept", "--reset", second}, 2, nil},
	}
	for _, st := range steps {
		var stdout, stderr bytes.Buffer
		code := run(st.args, strings.NewReader(""), &stdout, &stderr)
		if code != st.code {
			t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", st.args, code, st.code, stdout.String(), stderr.String())
		}
		for _, w := range st.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", st.args, w, stdout.String())
			}
		}
	}
	// The log holds every message in wire order: requests before answers.
	data, _ := os.ReadFile(first)
	if n := strings.Count(string(data), "\n"); n < 6 {
		t.Errorf("first capture has %d frames", n)
	}
}
