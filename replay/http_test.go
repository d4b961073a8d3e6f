package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// received is one request a loopback server got.
type received struct {
	header http.Header
	body   []byte
}

// loopback is a real HTTP server on 127.0.0.1 that keeps every request
// it receives and hands it to handler (the Go SDK's streamable handler
// unless a test answers itself).
type loopback struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []received
}

func newLoopback(t *testing.T, handler http.Handler) *loopback {
	l := &loopback{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		l.mu.Lock()
		l.got = append(l.got, received{header: r.Header.Clone(), body: body})
		l.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *loopback) url() string { return l.srv.URL + "/mcp" }

// requests returns what the server received, in order.
func (l *loopback) requests() []received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]received(nil), l.got...)
}

// call finds the tools/call of tool among the requests from the from-th.
func (l *loopback) call(from int, tool string) (received, bool) {
	for _, r := range l.requests()[from:] {
		if bytes.Contains(r.body, []byte(`"method":"tools/call"`)) && bytes.Contains(r.body, []byte(`"name":"`+tool+`"`)) {
			return r, true
		}
	}
	return received{}, false
}

// sdkHandler serves the test server's v1 build over streamable HTTP:
// stateless for 2026-07-28, with JSON or event-stream answers.
func sdkHandler(stateless, jsonResponse bool) http.Handler {
	srv := testserver.New(testserver.V1)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: jsonResponse})
}

// recordHTTP records script, a real SDK client, through mcpsnoop's HTTP
// proxy in front of target, and returns the log.
func recordHTTP(t *testing.T, target, version string, red *capture.Redactor, script func(context.Context, *testing.T, *mcp.ClientSession)) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs servers")
	}
	path := filepath.Join(t.TempDir(), "recording.jsonl")
	f, abs, err := capture.OpenLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(target)
	log := httpcapture.NewLog(f, httpcapture.LogOptions{SessionID: capture.NewSessionID("weather"), Label: "weather", Path: abs, Redactor: red})
	proxy := httpcapture.NewProxy(httpcapture.ProxyOptions{Target: u, Log: log})
	front := httptest.NewServer(proxy)
	client := mcp.NewClient(&mcp.Implementation{Name: "recorder", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seat": "aisle"}}, nil
		},
	})
	ctx := withTimeout(t)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp"}, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	script(ctx, t, cs)
	cs.Close()
	front.Close()
	proxy.Close()
	log.Close()
	return path
}

// weatherCalls lists the tools (so the client knows the x-mcp-header) and
// calls weather, with a region that must travel base64-encoded, and echo.
func weatherCalls(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res := call(ctx, t, cs, "weather", map[string]any{"region": "eu-zürich", "city": "Zürich"})
	if res.IsError {
		t.Fatalf("recorded weather: %+v", res)
	}
	call(ctx, t, cs, "echo", map[string]any{"text": "hi"})
}

// replayHTTP replays rec against target.
func replayHTTP(t *testing.T, rec *Recording, target string, header http.Header, o Options) *Result {
	t.Helper()
	res, err := Run(withTimeout(t), rec, Target{URL: target, Header: header, Log: filepath.Join(t.TempDir(), "replay.jsonl")}, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// rewrite changes the frames of a log in place.
func rewrite(t *testing.T, path string, change func(f *capture.Frame)) {
	t.Helper()
	var out bytes.Buffer
	for _, f := range framesOf(t, path) {
		change(&f)
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The replayed POST carries what the transport makes mandatory, as the
// server received it: the protocol version of the body, Accept with both
// types, Mcp-Method, Mcp-Name from the body, the captured Mcp-Param-*
// verbatim (the base64 sentinel too), and the credential given, no
// other. The SDK server checks them against the body, so a wrong one
// would fail the call; answers as JSON and as an event stream are both
// read.
func TestHTTPReplayHeaders(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		name := "event-stream"
		if jsonResponse {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			l := newLoopback(t, sdkHandler(true, jsonResponse))
			path := recordHTTP(t, l.url(), "", nil, weatherCalls)
			rec := load(t, path)
			var recorded []capture.ParamHeader
			for _, r := range rec.Steps {
				if r.Name == "weather" {
					recorded = r.Headers
				}
			}
			if len(recorded) != 1 || !strings.HasPrefix(recorded[0].Value, "=?base64?") {
				t.Fatalf("recorded param headers %+v", recorded)
			}
			before := len(l.requests())
			res := replayHTTP(t, rec, l.url(), http.Header{"Authorization": {"Bearer sk-replay"}}, Options{})
			v, err := Verify(rec, res, untimed)
			if err != nil {
				t.Fatal(err)
			}
			if v.Regressed() || v.Verified() != 4 || res.Stopped != "" { // server/discover, tools/list, weather, echo
				var b bytes.Buffer
				_ = v.WriteText(&b)
				t.Fatalf("replay:\n%s", b.String())
			}
			got, ok := l.call(before, "weather")
			if !ok {
				t.Fatal("the server never received the weather call")
			}
			h := got.header
			for k, want := range map[string]string{
				"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "weather",
				"Mcp-Param-Region": recorded[0].Value, "Authorization": "Bearer sk-replay", "Content-Type": "application/json",
			} {
				if h.Get(k) != want {
					t.Errorf("%s: %q, want %q", k, h.Get(k), want)
				}
			}
			if a := h.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
				t.Errorf("Accept: %q", a)
			}
			for _, r := range l.requests()[before:] {
				if r.header.Get("Mcp-Method") == "" || r.header.Get("Mcp-Session-Id") != "" {
					t.Errorf("request %s: Mcp-Method %q, Mcp-Session-Id %q", r.body, r.header.Get("Mcp-Method"), r.header.Get("Mcp-Session-Id"))
				}
			}
			if data, _ := os.ReadFile(res.Log); bytes.Contains(data, []byte("sk-replay")) {
				t.Error("the credential reached the replay log")
			}
			// No --replay-header: no credential, whatever the log holds.
			before = len(l.requests())
			replayHTTP(t, rec, l.url(), nil, Options{})
			for _, r := range l.requests()[before:] {
				if r.header.Get("Authorization") != "" {
					t.Errorf("a credential was sent without --replay-header: %q", r.header.Get("Authorization"))
				}
			}
		})
	}
}

// A redirect is refused and reported with where it pointed; nothing
// reaches that address.
func TestHTTPReplayRefusesRedirect(t *testing.T) {
	real := newLoopback(t, sdkHandler(true, false))
	rec := load(t, recordHTTP(t, real.url(), "", nil, weatherCalls))
	elsewhere := newLoopback(t, sdkHandler(true, false))
	redirect := newLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.url(), http.StatusTemporaryRedirect)
	}))
	res := replayHTTP(t, rec, redirect.url(), http.Header{"Authorization": {"Bearer sk-replay"}}, Options{})
	if !strings.Contains(res.Stopped, "307") || !strings.Contains(res.Stopped, elsewhere.url()) || !strings.Contains(res.Stopped, "not followed") {
		t.Errorf("stopped: %q", res.Stopped)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Errorf("the redirect target received %d requests", n)
	}
	if n := len(redirect.requests()); n != 1 {
		t.Errorf("the redirecting server received %d requests, want the first one only", n)
	}
	for _, o := range res.Outcomes[1:] {
		if o.Sent() || !strings.HasPrefix(o.Skipped, "the replay stopped: ") {
			t.Errorf("after the redirect: %+v", o)
		}
	}
}

// A Mcp-Param-* header that redaction scrubbed at capture stops that
// call's replay with a reason, and the server never sees the call; the
// rest of the session still replays.
func TestHTTPReplayRefusesRedactedParam(t *testing.T) {
	l := newLoopback(t, sdkHandler(true, false))
	red, err := capture.NewRedactor(capture.RedactOptions{Keys: []string{"region"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := load(t, recordHTTP(t, l.url(), "", red, weatherCalls))
	before := len(l.requests())
	res := replayHTTP(t, rec, l.url(), nil, Options{})
	for _, r := range l.requests()[before:] {
		if bytes.Contains(r.body, []byte(`"weather"`)) && bytes.Contains(r.body, []byte("tools/call")) {
			t.Errorf("the server received the redacted call: %s", r.body)
		}
	}
	var weather, echo *Outcome
	for _, o := range res.Outcomes {
		switch o.Request.Name {
		case "weather":
			weather = o
		case "echo":
			echo = o
		}
	}
	if weather == nil || weather.Sent() || !strings.Contains(weather.Skipped, "Mcp-Param-Region was scrubbed by redaction") {
		t.Errorf("weather: %+v", weather)
	}
	if echo == nil || !echo.Sent() || echo.Answer == nil {
		t.Errorf("echo: %+v", echo)
	}
}

// Failures are named, not numbered: a 401 by the scheme it demands, a
// -32020 by what the server objected to, a 400 or 404 that is not
// JSON-RPC as an address that is no Streamable HTTP endpoint.
func TestHTTPReplayNamesFailures(t *testing.T) {
	l := newLoopback(t, sdkHandler(true, false))
	path := recordHTTP(t, l.url(), "", nil, weatherCalls)

	t.Run("401", func(t *testing.T) {
		auth := newLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		res := replayHTTP(t, load(t, path), auth.url(), nil, Options{})
		if !strings.Contains(res.Stopped, "401") || !strings.Contains(res.Stopped, "demands Bearer authentication") {
			t.Errorf("stopped: %q", res.Stopped)
		}
		if n := len(auth.requests()); n != 1 {
			t.Errorf("%d requests after a 401", n)
		}
	})
	t.Run("-32020", func(t *testing.T) {
		tampered := filepath.Join(t.TempDir(), "tampered.jsonl")
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(tampered, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rewrite(t, tampered, func(f *capture.Frame) {
			for i := range f.McpParamHeaders {
				f.McpParamHeaders[i].Value = "us-east" // the body says eu-zürich
			}
		})
		rec := load(t, tampered)
		before := len(l.requests())
		res := replayHTTP(t, rec, l.url(), nil, Options{})
		var weather *Outcome
		for _, o := range res.Outcomes {
			if o.Request.Name == "weather" {
				weather = o
			}
		}
		if weather == nil || !strings.Contains(weather.Failure, "-32020") || !strings.Contains(weather.Failure, "Mcp-Param-Region") {
			t.Fatalf("weather: %+v", weather)
		}
		got := false
		for _, r := range l.requests()[before:] {
			got = got || r.header.Get("Mcp-Param-Region") == "us-east"
		}
		if !got {
			t.Error("the captured header was not sent verbatim")
		}
		v, err := Verify(rec, res, untimed)
		if err != nil {
			t.Fatal(err)
		}
		if c := verdicts(v)["weather"]; c.Outcome != OutcomeErrorNow || !strings.Contains(c.Reason, "-32020") {
			t.Errorf("verdict: %+v", c)
		}
	})
	for _, status := range []int{http.StatusNotFound, http.StatusBadRequest} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			plain := newLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no such page", status)
			}))
			res := replayHTTP(t, load(t, path), plain.url(), nil, Options{})
			if !strings.Contains(res.Stopped, "is not a Streamable HTTP endpoint of 2026-07-28") {
				t.Errorf("stopped: %q", res.Stopped)
			}
		})
	}
}

// An edited call (the viewer's R) sends no captured Mcp-Param-*, and its
// Mcp-Name comes from the edited body.
func TestHTTPReplayEdited(t *testing.T) {
	l := newLoopback(t, sdkHandler(true, false))
	rec := load(t, recordHTTP(t, l.url(), "", nil, weatherCalls))
	var weather *Request
	for _, r := range rec.Steps {
		if r.Name == "weather" {
			weather = r
		}
	}
	edited := json.RawMessage(`{"name":"echo","arguments":{"text":"edited"}}`)
	before := len(l.requests())
	res := replayHTTP(t, rec, l.url(), nil, Options{Only: func(r *Request) bool { return r == weather }, Edited: map[*Request]json.RawMessage{weather: edited}})
	if len(res.Outcomes) != 1 || !strings.Contains(string(res.Outcomes[0].Answer), `"edited"`) {
		t.Fatalf("outcomes %+v", res.Outcomes)
	}
	got := l.requests()[before:]
	last := got[len(got)-1]
	if last.header.Get("Mcp-Name") != "echo" || last.header.Get("Mcp-Param-Region") != "" {
		t.Errorf("headers %v", last.header)
	}
}

// A 2025-11-25 session over HTTP: the replay initializes, carries the
// session id the live server issued, and answers the server's elicitation
// on the event stream with the recorded answer.
func TestHTTPReplayLegacySession(t *testing.T) {
	l := newLoopback(t, sdkHandler(false, false))
	rec := load(t, recordHTTP(t, l.url(), "2025-11-25", nil, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := call(ctx, t, cs, "ask", map[string]any{"text": "Seat?"}).Content[0].(*mcp.TextContent).Text; got != "user said accept aisle" {
			t.Fatalf("recorded ask: %q", got)
		}
	}))
	if rec.Modern() || rec.Init == nil {
		t.Fatalf("recording: revision %q", rec.Revision)
	}
	before := len(l.requests())
	res := replayHTTP(t, rec, l.url(), nil, Options{})
	v, err := Verify(rec, res, untimed)
	if err != nil {
		t.Fatal(err)
	}
	if c := verdicts(v)["ask"]; c.Outcome != OutcomeSame || len(res.Declined) > 0 {
		t.Fatalf("ask: %+v, declined %v, stopped %q", c, res.Declined, res.Stopped)
	}
	got := l.requests()[before:]
	if got[0].header.Get("Mcp-Session-Id") != "" || got[1].header.Get("Mcp-Session-Id") == "" || got[1].header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Errorf("initialize %v; next %v", got[0].header, got[1].header)
	}
}
