package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
)

// maxBody bounds one answer the replay reads (a JSON body or one event).
const maxBody = 64 << 20

// reservedHeaders are the headers a replay derives itself; --replay-header
// may not set them (a credential or a custom header may).
var reservedHeaders = []string{"Accept", "Content-Type", "Content-Length", "Host", "Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-Id"}

// CheckHeader refuses a --replay-header that names a header the replay
// derives from the message it sends (and Mcp-Param-*, which come from the
// capture).
func CheckHeader(name string) error {
	c := http.CanonicalHeaderKey(strings.TrimSpace(name))
	if c == "" {
		return errors.New("empty header name")
	}
	if strings.HasPrefix(c, "Mcp-Param-") {
		return fmt.Errorf("%s: Mcp-Param-* headers are re-sent from the capture, not given", c)
	}
	for _, r := range reservedHeaders {
		if c == r {
			return fmt.Errorf("%s: the replay sets this header itself, from the message it sends", c)
		}
	}
	return nil
}

// httpConn posts a replay to a Streamable HTTP server through mcpsnoop's
// proxy, run in this process on a loopback port, which logs the replay as
// it logs any client.
type httpConn struct {
	client   *http.Client
	endpoint string // the proxy's address with the target's path and query
	target   *url.URL
	header   http.Header

	mu       sync.Mutex
	protocol string // MCP-Protocol-Version
	session  string // Mcp-Session-Id the server issued (before Modern)

	srv   *http.Server
	proxy *httpcapture.Proxy
	log   *httpcapture.Log

	answer func(id json.RawMessage, method string) []byte
}

func openHTTP(rec *Recording, t Target, answer func(json.RawMessage, string) []byte) (*httpConn, error) {
	target, err := httpcapture.ParseTarget(t.URL)
	if err != nil {
		return nil, err
	}
	for name := range t.Header {
		if err := CheckHeader(name); err != nil {
			return nil, err
		}
	}
	label := rec.Label
	if label == "" || capture.ValidateLabel(label) != nil {
		label = httpcapture.DefaultLabel(target)
	}
	open := capture.OpenLogFile
	if t.LogInState {
		open = capture.OpenStateLog
	}
	f, path, err := open(t.Log)
	if err != nil {
		return nil, fmt.Errorf("replay log: %w", err)
	}
	log := httpcapture.NewLog(f, httpcapture.LogOptions{SessionID: capture.NewSessionID(label), Label: label, Path: path, Redactor: t.Redactor})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Close()
		return nil, err
	}
	proxy := httpcapture.NewProxy(httpcapture.ProxyOptions{Target: target, Log: log})
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	endpoint := (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: target.Path, RawQuery: target.RawQuery}).String()
	if target.Path == "" {
		endpoint = (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/", RawQuery: target.RawQuery}).String()
	}
	return &httpConn{
		client: &http.Client{
			// A redirect is reported, never followed: the address is the
			// one the user named, and a 307 would resend the body (and, on
			// a hop that keeps the host, the credential) somewhere else.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport:     &http.Transport{DisableCompression: true, Proxy: nil},
		},
		endpoint: endpoint, target: target, header: t.Header,
		srv: srv, proxy: proxy, log: log, answer: answer,
	}, nil
}

func (c *httpConn) setProtocol(v string) {
	c.mu.Lock()
	c.protocol = v
	c.mu.Unlock()
}

// post sends body with the headers the transport makes mandatory.
func (c *httpConn) post(ctx context.Context, x *exchange, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range c.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	// The revision the body declares, else the session's.
	if x != nil && x.protocol != "" {
		h.Set("MCP-Protocol-Version", x.protocol)
	} else if c.protocol != "" {
		h.Set("MCP-Protocol-Version", c.protocol)
	}
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
	}
	c.mu.Unlock()
	if x != nil && x.method != "" {
		h.Set("Mcp-Method", x.method)
		if x.name != "" && (x.method == "tools/call" || x.method == "prompts/get" || x.method == "resources/read") {
			h.Set("Mcp-Name", headerValue(x.name))
		}
		// Verbatim from the capture, base64 sentinel and all: they mirror
		// the recorded arguments, which are the ones being sent.
		for _, p := range x.headers {
			h.Add(p.Name, p.Value)
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.mu.Lock()
		c.session = sid
		c.mu.Unlock()
	}
	return resp, nil
}

func (c *httpConn) call(ctx context.Context, x *exchange) (*reply, error) {
	resp, err := c.post(ctx, x, x.body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &stopError{reason: "cannot reach the replay proxy: " + err.Error()}
	}
	defer resp.Body.Close()
	if err := c.refused(resp); err != nil {
		return nil, err
	}
	if capture.MediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		return c.stream(ctx, resp, x.id)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return c.interpret(resp.StatusCode, body)
}

// refused stops the replay on an answer no later request can get past: a
// redirect (never followed) or a 401 (credentials come only from
// --replay-header).
func (c *httpConn) refused(resp *http.Response) error {
	switch code := resp.StatusCode; {
	case code >= 300 && code < 400:
		loc := resp.Header.Get("Location")
		if loc == "" {
			loc = "(no Location header)"
		}
		return &stopError{reason: fmt.Sprintf("the server answered %d, redirecting to %s; a replay goes only to the address you named, so it was not followed (name that address with --replay-target if you trust it)", code, loc)}
	case code == http.StatusUnauthorized:
		challenge := resp.Header.Get("WWW-Authenticate")
		scheme, _, _ := strings.Cut(strings.TrimSpace(challenge), " ")
		if scheme == "" {
			return &stopError{reason: "the server answered 401 without a WWW-Authenticate challenge; pass a credential with --replay-header"}
		}
		return &stopError{reason: fmt.Sprintf("the server answered 401: it demands %s authentication (WWW-Authenticate: %s); pass a credential with --replay-header 'Authorization: %s ...'", scheme, challenge, scheme)}
	}
	return nil
}

// interpret reads a JSON (or other) body: a JSON-RPC answer, or a failure
// named rather than numbered.
func (c *httpConn) interpret(status int, body []byte) (*reply, error) {
	var m message
	trimmed := bytes.TrimSpace(body)
	isRPC := json.Unmarshal(trimmed, &m) == nil && m.Method == "" && (m.Result != nil || m.Error != nil)
	if isRPC {
		rep := &reply{msg: json.RawMessage(trimmed), status: status}
		if e, ok := decodeError(m.Error); ok && e.Code == -32020 {
			rep.failure = fmt.Sprintf("the server rejected the request's MCP headers (-32020 HeaderMismatch): %s", e.Message)
			if len(e.Data) > 0 {
				rep.failure += " " + string(e.Data)
			}
		}
		return rep, nil
	}
	switch {
	case status == http.StatusBadRequest || status == http.StatusNotFound:
		c.mu.Lock()
		rev := c.protocol
		c.mu.Unlock()
		if rev == "" {
			rev = "this revision"
		}
		return nil, &stopError{reason: fmt.Sprintf("%s answered %d without a JSON-RPC message: it is not a Streamable HTTP endpoint of %s", c.target.Redacted(), status, rev)}
	}
	// Another failure (a 500, a 403 for an Origin), or a success that
	// carries no answer: this call failed, the next one may not.
	return &reply{status: status, failure: fmt.Sprintf("HTTP %d without a JSON-RPC answer%s", status, excerpt(trimmed))}, nil
}

func excerpt(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	const max = 200
	s := string(b)
	if len(s) > max {
		s = s[:max] + "..."
	}
	return ": " + s
}

// stream reads an event stream until the answer to id; the server's own
// requests on it are answered by POSTs of their own.
func (c *httpConn) stream(ctx context.Context, resp *http.Response, id json.RawMessage) (*reply, error) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	var data []string
	flush := func() (*reply, error) {
		if len(data) == 0 {
			return nil, nil
		}
		event := []byte(strings.Join(data, "\n"))
		data = data[:0]
		var m message
		if json.Unmarshal(event, &m) != nil || !m.hasID() {
			return nil, nil // a notification or not JSON-RPC: the log has it
		}
		if m.Method != "" {
			c.reply(ctx, c.answer(m.ID, m.Method))
			return nil, nil
		}
		if string(m.ID) == string(id) {
			return &reply{msg: json.RawMessage(bytes.Clone(event)), status: resp.StatusCode}, nil
		}
		return nil, nil
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if rep, err := flush(); rep != nil || err != nil {
				return rep, err
			}
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if rep, err := flush(); rep != nil || err != nil {
		return rep, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return &reply{status: resp.StatusCode, failure: "the event stream ended without an answer"}, nil
}

// reply posts the client's answer to a server request.
func (c *httpConn) reply(ctx context.Context, body []byte) {
	resp, err := c.post(ctx, nil, body)
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	}
}

func (c *httpConn) notify(ctx context.Context, x *exchange) error {
	resp, err := c.post(ctx, x, x.body)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return &stopError{reason: "cannot reach the replay proxy: " + err.Error()}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	return c.refused(resp)
}

// cancel needs nothing on HTTP: the call's request was cancelled, which
// closed its stream.
func (c *httpConn) cancel(json.RawMessage) {}

func (c *httpConn) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c.client.CloseIdleConnections()
	_ = c.srv.Shutdown(ctx)
	_ = c.proxy.Shutdown(ctx)
	if lost := c.log.Close(); lost > 0 {
		return fmt.Errorf("%d frame(s) were dropped from the replay log; it is incomplete", lost)
	}
	return nil
}
