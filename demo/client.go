package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The client's identity.
var clientInfo = implementation{Name: "demo-agent", Version: "1.0.0"}

// client is an MCP client of the session era over Streamable HTTP, as
// much of one as the demo's script needs: it POSTs one message at a time
// and reads the answer as JSON or as an SSE stream.
type client struct {
	endpoint string
	http     *http.Client
	session  string // the Mcp-Session-Id initialize gave
	version  string // the revision initialize settled, sent as MCP-Protocol-Version
	lastID   int
}

func newClient(endpoint string) *client {
	return &client{endpoint: endpoint, http: &http.Client{}}
}

// connect probes with server/discover as a dual-era client does, then
// opens a session: initialize, and notifications/initialized once it is
// answered.
func (c *client) connect(ctx context.Context) error {
	if err := c.discover(ctx); err != nil {
		return err
	}
	if err := c.initialize(ctx); err != nil {
		return err
	}
	return c.notify(ctx, "notifications/initialized", struct{}{})
}

// discover asks in 2026-07-28 which revisions the server speaks. The
// client speaks the session era alone, so any answer, even an error, sends
// it on to initialize; only a server it cannot reach stops it.
func (c *client) discover(ctx context.Context) error {
	params := map[string]any{"_meta": map[string]any{
		metaProtocolVersion:    modernVersion,
		metaClientInfo:         clientInfo,
		metaClientCapabilities: map[string]any{},
	}}
	hdr := http.Header{"Mcp-Protocol-Version": {modernVersion}, "Mcp-Method": {"server/discover"}}
	_, err := c.call(ctx, "server/discover", params, hdr)
	var refused *httpError
	var rerr *RPCError
	if err != nil && !errors.As(err, &refused) && !errors.As(err, &rerr) {
		return err
	}
	return nil
}

// initialize opens the session and keeps its id and revision.
func (c *client) initialize(ctx context.Context) error {
	params := map[string]any{"protocolVersion": legacyVersions[0], "capabilities": map[string]any{}, "clientInfo": clientInfo}
	resp, err := c.post(ctx, c.request("initialize", params), nil)
	if err != nil {
		return err
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	raw, err := readAnswer(resp, c.lastID)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || !slices.Contains(legacyVersions, res.ProtocolVersion) {
		return fmt.Errorf("initialize: the server settled on revision %q, which this client does not speak", res.ProtocolVersion)
	}
	c.version = res.ProtocolVersion
	return nil
}

// listTools asks for the tools' names.
func (c *client) listTools(ctx context.Context) ([]string, error) {
	raw, err := c.call(ctx, "tools/list", nil, nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

// callTool calls a tool: its result, or an *RPCError when the server
// refused the call.
func (c *client) callTool(ctx context.Context, name string, args map[string]any) (*CallResult, error) {
	raw, err := c.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, nil)
	if err != nil {
		return nil, err
	}
	var res CallResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	return &res, nil
}

// close ends the session (DELETE), as a client that is done does.
func (c *client) close(ctx context.Context) error {
	if c.session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.endpoint, nil)
	if err != nil {
		return err
	}
	c.setHeaders(req.Header)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// call sends a request and returns its result: an *RPCError when the
// answer is an error, an *httpError when the transport refused it.
func (c *client) call(ctx context.Context, method string, params any, hdr http.Header) (json.RawMessage, error) {
	resp, err := c.post(ctx, c.request(method, params), hdr)
	if err != nil {
		return nil, err
	}
	raw, err := readAnswer(resp, c.lastID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
}

// notify sends a notification, which the server accepts with 202.
func (c *client) notify(ctx context.Context, method string, params any) error {
	resp, err := c.post(ctx, message{JSONRPC: "2.0", Method: method, Params: params}, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("%s: %w", method, refusal(resp))
	}
	return nil
}

// request is the next request, numbered from 1.
func (c *client) request(method string, params any) message {
	c.lastID++
	return message{JSONRPC: "2.0", ID: json.RawMessage(strconv.Itoa(c.lastID)), Method: method, Params: params}
}

// post POSTs one message with the transport's headers; hdr adds to them.
func (c *client) post(ctx context.Context, m message, hdr http.Header) (*http.Response, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.setHeaders(req.Header)
	for k, v := range hdr {
		req.Header[k] = v
	}
	return c.http.Do(req)
}

// setHeaders sets the session's headers, once initialize has given them.
func (c *client) setHeaders(h http.Header) {
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		h.Set("Mcp-Protocol-Version", c.version)
	}
}

// httpError is an HTTP answer that carries no JSON-RPC answer.
type httpError struct {
	status int
	text   string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.text) }

func refusal(resp *http.Response) *httpError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &httpError{status: resp.StatusCode, text: strings.TrimSpace(string(b))}
}

// readAnswer reads the response to request id from an answer, which is
// one JSON message or an SSE stream whose events carry messages (the
// server's notifications about the request, then the response).
func readAnswer(resp *http.Response, id int) (json.RawMessage, error) {
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var found *incoming
	var err error
	switch {
	case resp.StatusCode != http.StatusOK:
		// In the session era a JSON-RPC error comes with 200: any other
		// status is the transport refusing the request.
		return nil, refusal(resp)
	case mt == "application/json":
		found, err = responseIn(resp.Body, id)
	case mt == "text/event-stream":
		found, err = responseInEvents(resp.Body, id)
	default:
		return nil, fmt.Errorf("an answer of type %q, neither JSON nor an event stream", mt)
	}
	switch {
	case err != nil:
		return nil, err
	case found == nil:
		return nil, fmt.Errorf("no response to request %d", id)
	case found.Error != nil:
		return nil, found.Error
	}
	return found.Result, nil
}

// responseIn reads one JSON message: the response to id, or nil.
func responseIn(r io.Reader, id int) (*incoming, error) {
	var m incoming
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, err
	}
	return answering(m, id), nil
}

// responseInEvents reads SSE events until one carries the response to id.
func responseInEvents(r io.Reader, id int) (*incoming, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line != "" {
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(v, " "))
			}
			continue
		}
		var m incoming
		if len(data) > 0 && json.Unmarshal([]byte(strings.Join(data, "\n")), &m) == nil {
			if found := answering(m, id); found != nil {
				return found, nil
			}
		}
		data = data[:0]
	}
	return nil, sc.Err()
}

// answering is m when it is the response to id.
func answering(m incoming, id int) *incoming {
	if m.Method != "" || string(m.ID) != strconv.Itoa(id) {
		return nil
	}
	return &m
}
