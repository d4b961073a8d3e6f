package mock

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
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/tidwall/gjson"
)

// everything is the real capture the tests mock: server-everything
// 2026.8.31 through the stdio shim, under the Go SDK's client playing
// package mocktest (see testdata/record).
const everything = "testdata/everything.jsonl"

func load(t *testing.T, path string) *Recording {
	t.Helper()
	rec, err := Load(capture.Input{Path: path, Name: path}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// memLog is a session log in memory.
type memLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (m *memLog) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buf.Write(p)
}
func (m *memLog) Close() error { return nil }

func (m *memLog) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buf.String()
}

func newMemLog(label string) (*memLog, *capture.LogWriter) {
	m := &memLog{}
	w := NewLog(m, capture.LogOptions{SessionID: capture.NewSessionID(label), Label: label, Path: "(test)"}, capture.SessionMeta{Command: []string{"mcpsnoop", "mock"}})
	return m, w
}

// checkLog runs the check engine over a log and returns its report.
func checkLog(t *testing.T, log string) *checker.Report {
	t.Helper()
	eng := checker.New(checker.Config{})
	err := capture.ReadLog(strings.NewReader(log), "mock.jsonl", func(f *capture.Frame, line int) bool {
		if f.SessionID == "" {
			return false
		}
		eng.Ingest(f, checker.Position{Name: "mock.jsonl", Line: line})
		return true
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return eng.Report()
}

// stdioRig runs a mock conversation over pipes in the test's process.
type stdioRig struct {
	clientIn  io.ReadCloser  // what the mock writes
	clientOut io.WriteCloser // what the mock reads
	done      chan error
}

func startStdio(t *testing.T, e *Engine, log *capture.LogWriter) *stdioRig {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &stdioRig{clientIn: outR, clientOut: inW, done: make(chan error, 1)}
	s := &Stdio{In: inR, Out: outW, Log: log}
	go func() {
		err := s.Serve(context.Background(), e)
		outW.Close()
		r.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return r
}

func (r *stdioRig) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(time.Minute): // a hang, not a timing
		t.Fatal("the mock did not end")
		return nil
	}
}

// rawClient speaks JSON-RPC lines to a stdio mock by hand, for what no SDK
// client sends (an MRTR retry, a request nothing recorded).
type rawClient struct {
	t   *testing.T
	out io.Writer
	in  *bufio.Scanner
}

func newRawClient(t *testing.T, r *stdioRig) *rawClient {
	sc := bufio.NewScanner(r.clientIn)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &rawClient{t: t, out: r.clientOut, in: sc}
}

func (c *rawClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.out, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the mock's next message.
func (c *rawClient) next() map[string]json.RawMessage {
	c.t.Helper()
	if !c.in.Scan() {
		c.t.Fatalf("the mock wrote nothing more: %v", c.in.Err())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(c.in.Bytes(), &m); err != nil {
		c.t.Fatalf("not JSON: %s", c.in.Bytes())
	}
	return m
}

// call sends a request and returns its answer, skipping what comes before.
func (c *rawClient) call(msg string) map[string]json.RawMessage {
	c.t.Helper()
	c.send(msg)
	var id json.RawMessage
	var req map[string]json.RawMessage
	_ = json.Unmarshal([]byte(msg), &req)
	id = req["id"]
	for {
		m := c.next()
		if _, isReq := m["method"]; !isReq && string(m["id"]) == string(id) {
			return m
		}
	}
}

func errorCode(t *testing.T, m map[string]json.RawMessage) (int, string) {
	t.Helper()
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil || e.Code == 0 {
		t.Fatalf("want an error, got %s %s", m["result"], m["error"])
	}
	return e.Code, e.Message
}

// sameAsRecorded asserts that every answer the client read carries the
// result (or error) of its recorded request, byte for byte. Over HTTP
// (overHTTP) the SDK's server/discover probe, which declares no 2026-07-28
// in its _meta, is refused by the transport before a session exists, and
// gets no JSON-RPC answer.
func sameAsRecorded(t *testing.T, rec *Recording, raw *mocktest.Raw, overHTTP bool) {
	t.Helper()
	n := 0
	for _, x := range raw.Exchanges() {
		if overHTTP && x.Method == "server/discover" && x.Response == nil {
			continue
		}
		if x.Response == nil {
			t.Errorf("%s: no answer", x.Method)
			continue
		}
		want := recordedFor(t, rec, x.Method, x.Params)
		if x.Response.Error != nil {
			if !strings.Contains(string(want), `"error"`) {
				t.Errorf("%s: error %v, recorded %s", x.Method, x.Response.Error, want)
			}
			n++
			continue
		}
		if got := string(x.Response.Result); got != gjson.GetBytes(want, "result").Raw {
			t.Errorf("%s %s: result\n%s\nis not the recorded one:\n%s", x.Method, x.Params, got, want)
		}
		n++
	}
	if n < 11 {
		t.Errorf("only %d answers compared", n)
	}
}

// recordedFor is the recorded answer of the request with this method and
// params (ignoring _meta).
func recordedFor(t *testing.T, rec *Recording, method string, params json.RawMessage) json.RawMessage {
	t.Helper()
	base, _ := matchKeys(params)
	for _, x := range rec.Exchanges {
		if x.Method == method && (handshake(method) || x.base == base) {
			return x.Answer
		}
	}
	t.Fatalf("the recording has no %s %s", method, params)
	return nil
}

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
