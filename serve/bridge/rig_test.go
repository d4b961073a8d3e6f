package bridge_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/mcpsnoop/mcpsnoop/serve/bridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// rig is a bridge in front of the test server, on loopback, with its logs
// in a folder of the test's.
type rig struct {
	url   string
	dir   string
	h     *serve.Handler
	b     *bridge.Bridge
	ref   *bridge.RefusalLog
	srv   *http.Server
	notes *noteLines
	n     *capture.Notices
	once  sync.Once
}

func newRig(t *testing.T, args ...string) *rig {
	t.Helper()
	bin := testbin.Build(t, "./testdata/server")
	r := &rig{dir: t.TempDir(), notes: newNoteLines()}
	r.n = capture.NewNotices(r.notes)
	command := append([]string{bin}, args...)
	r.b = bridge.New(bridge.Options{Command: command, KillGrace: 5 * time.Second, Notices: r.n, OpenLog: func(bool) (io.WriteCloser, capture.LogOptions) {
		return r.openLog(t, "bridgetest")
	}})
	r.ref = bridge.NewRefusalLog(command, func() (io.WriteCloser, capture.LogOptions) { return r.openLog(t, "bridgetest-bridge") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	guard, err := hostcheck.New(ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.h = serve.NewHandler(serve.Options{Name: "mcpsnoop bridge", Backend: r.b, Guard: guard, Notices: r.n, OnRefuse: r.ref.Record})
	r.srv = &http.Server{Handler: r.h}
	go r.srv.Serve(ln)
	r.url = "http://" + ln.Addr().String() + "/mcp"
	t.Cleanup(r.stop)
	return r
}

func (r *rig) openLog(t *testing.T, label string) (io.WriteCloser, capture.LogOptions) {
	sid := capture.NewSessionID(label)
	f, path, err := capture.OpenLogFile(filepath.Join(r.dir, sid+".jsonl"))
	if err != nil {
		t.Errorf("open log: %v", err)
		return nil, capture.LogOptions{}
	}
	return f, capture.LogOptions{SessionID: sid, Label: label, Path: path}
}

// stop ends everything and waits for the servers and their logs.
func (r *rig) stop() {
	r.once.Do(func() {
		r.h.Close()
		_ = r.srv.Close()
		r.b.Wait()
		r.ref.Close()
		r.n.Close(capture.NoticeFlush)
	})
}

// logs reads every log of the rig (call stop first), by file name.
func (r *rig) logs(t *testing.T) map[string][]capture.Frame {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(r.dir, "*.jsonl"))
	out := map[string][]capture.Frame{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var frames []capture.Frame
		err = capture.ReadLog(f, p, func(fr *capture.Frame, line int) bool {
			frames = append(frames, fr.Clone())
			return true
		}, func() {})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = frames
	}
	return out
}

// serverLogs are the logs of server processes (not the bridge's own).
func (r *rig) serverLogs(t *testing.T) [][]capture.Frame {
	all := r.logs(t)
	names := make([]string, 0, len(all))
	for n := range all {
		if !strings.HasPrefix(n, "bridgetest-bridge-") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([][]capture.Frame, len(names))
	for i, n := range names {
		out[i] = all[n]
	}
	return out
}

// check runs the checker over frames, as `mcpsnoop check` would.
func check(t *testing.T, frames []capture.Frame) *checker.Report {
	t.Helper()
	e := checker.New(checker.Config{})
	for i := range frames {
		e.Ingest(&frames[i], checker.Position{Name: "log", Line: i + 1})
	}
	return e.Report()
}

// connect opens a Go SDK client session through the bridge.
func connect(t *testing.T, url, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "1.0.0"}, opts)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	return s
}

func callText(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// noteLines collects the bridge's notices, for tests to wait on.
type noteLines struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newNoteLines() *noteLines { return &noteLines{changed: make(chan struct{}, 1)} }

func (n *noteLines) Write(p []byte) (int, error) {
	n.mu.Lock()
	n.buf.Write(p)
	n.mu.Unlock()
	select {
	case n.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (n *noteLines) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.buf.String()
}

// waitFor blocks until a notice holds s. The bound only turns a hang into
// a failure; nothing is timed.
func (n *noteLines) waitFor(t *testing.T, s string) {
	t.Helper()
	guard := time.NewTimer(2 * time.Minute)
	defer guard.Stop()
	for !strings.Contains(n.String(), s) {
		select {
		case <-n.changed:
		case <-guard.C:
			t.Fatalf("no notice %q; the notices:\n%s", s, n.String())
		}
	}
}

// frames of a direction, and their raw messages as text.
func raws(frames []capture.Frame, dir string) []string {
	var out []string
	for _, f := range frames {
		if f.Direction == dir && len(f.Raw) > 0 {
			out = append(out, string(f.Raw))
		}
	}
	return out
}

// post sends one JSON-RPC message as a client would, with headers.
func post(t *testing.T, ctx context.Context, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
