// Package httpcapture is the streamable-HTTP capture: a reverse proxy
// (Proxy) in front of one MCP server that forwards every exchange unchanged
// and logs its JSON-RPC messages, SSE events and statuses as frames
// (capture.Frame) through the log writer every capture uses
// (capture.LogWriter, wrapped as Log). It owns what is HTTP-specific:
// headers recorded and not, sessions and connections, event streams, and
// decoding compressed bodies for the log, on the writer's side.
package httpcapture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Proxy is a reverse proxy for one streamable-HTTP MCP server that logs
// every JSON-RPC message it carries. It forwards any method and path to the
// target (the target's path replaces the client's when it has one) and
// streams each response to the client as it arrives, flushing every chunk
// (in as few writes as that allows: see flushWriter). Bytes are forwarded
// unchanged both ways: a compressed response reaches the client compressed
// and is logged decoded.
//
// What is logged (spec: capture-store-export.md section 4): each request
// body as c2s frames (a batch gives one frame per element, marked batch),
// each JSON response body, SSE event and batch element as s2c frames, a
// response without a body as a frame with only its status, and a target
// that cannot be reached as a 502 frame after the request it failed. The
// routing headers (Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Param-*)
// and Content-Type, Accept, Origin and Host are recorded; Authorization,
// cookies, Mcp-Session-Id and Last-Event-ID are forwarded and never
// recorded. The log starts with a meta frame naming the target (TargetOf).
// With a Guard, a request whose Host or Origin it refuses is answered 403
// by the proxy itself (logged by_proxy) and never forwarded.
//
// conn_id, part of the key a checker matches answers with, is the remote
// address of the client connection that opened the MCP session: an exchange
// carrying an Mcp-Session-Id gets the address of the exchange whose
// response issued that id (or, for an id issued before the proxy started,
// of the first exchange that carried it). So a server request sent on one
// connection (an SSE stream) and the client's answer POSTed on another
// share it, while two clients, each with its own session, stay apart. An
// exchange without a session id is keyed by its own connection.
type Proxy struct {
	target *url.URL
	log    *Log
	// warn is never waited for: it is written to from the goroutines that
	// forward requests, and a full stderr must not delay a forwarded byte.
	// Shutdown closes it when it was made here (ownWarn).
	warn    *capture.Notices
	ownWarn bool
	rp      *httputil.ReverseProxy

	sessions sessionConns

	closing context.Context // cancelled by CloseStreams
	stop    context.CancelFunc
	aborted context.Context // cancelled by Close
	abort   context.CancelFunc
	active  inflight

	guard *hostcheck.Policy

	warnMu  sync.Mutex
	unknown map[string]bool // content-codings already warned about
	refused bool            // a refusal was warned about
}

// ProxyOptions configures an Proxy.
type ProxyOptions struct {
	Target *url.URL
	Log    *Log // nil: forward only
	// Transport reaches the target; nil uses a copy of
	// http.DefaultTransport that never asks for compression itself (the
	// client's Accept-Encoding is what the target sees).
	Transport http.RoundTripper
	// Warn takes a line per unreachable target and such, through a
	// capture.Notices (Warn itself when it is one); nil for nowhere.
	Warn io.Writer
	// Guard is the DNS-rebinding guard (hostcheck.New for the listening
	// address): a request it refuses gets a 403 of the proxy's own and
	// never reaches the target. nil checks nothing.
	Guard *hostcheck.Policy
}

// NewProxy returns a proxy to o.Target.
func NewProxy(o ProxyOptions) *Proxy {
	p := &Proxy{target: o.Target, log: o.Log, guard: o.Guard, unknown: map[string]bool{}}
	if p.log != nil {
		p.log.meta(capture.SessionMeta{Target: TargetOf(o.Target)})
	}
	p.warn, p.ownWarn = capture.NoticesFor(o.Warn)
	p.sessions.m = map[sessionKey]sessionEntry{}
	p.closing, p.stop = context.WithCancel(context.Background())
	p.aborted, p.abort = context.WithCancel(context.Background())
	tr := o.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		// Every request goes to one host: keep a connection per client
		// exchange in flight idle for the next (the default keeps two, so
		// a burst of concurrent calls would dial and close connections to
		// the target on every burst).
		t.MaxIdleConns, t.MaxIdleConnsPerHost = maxIdleConns, maxIdleConns
		tr = t
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:   p.rewrite,
		Transport: tr,
		// Every chunk reaches the client at once: flushWriter flushes each
		// write. Left to the reverse proxy (FlushInterval -1), a response
		// with a Content-Length would cost two writes to the client (its
		// headers, flushed from a goroutine of their own, then its body)
		// where one does. Event streams and bodies of unknown length still
		// have their headers flushed at once (the reverse proxy does that
		// for them whatever FlushInterval says).
		FlushInterval:  0,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       discardLog,
		// Without a pool the reverse proxy allocates (and zeroes) a 32 KiB
		// buffer for every response it copies: more than half of what an
		// exchange allocates, and so of the garbage collector's work.
		BufferPool: copyBuffers,
	}
	return p
}

// copyBuffers are the buffers the reverse proxy copies response bodies
// through, shared by every proxy (httputil.BufferPool).
var copyBuffers = &bufferPool{}

// bufferPool is an httputil.BufferPool of copyBufferSize buffers.
type bufferPool struct{ p sync.Pool }

// copyBufferSize is the size of the reverse proxy's own buffers.
const copyBufferSize = 32 << 10

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, copyBufferSize)
}

func (b *bufferPool) Put(buf []byte) {
	if cap(buf) != copyBufferSize {
		return
	}
	buf = buf[:copyBufferSize]
	b.p.Put(&buf)
}

// maxIdleConns is how many idle connections to the target the proxy's own
// transport keeps.
const maxIdleConns = 256

// ParseTarget checks a --target URL: http or https, with a host.
func ParseTarget(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid target URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("invalid target URL %q: the scheme must be http or https", s)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("invalid target URL %q: no host", s)
	}
	return u, nil
}

// TargetOf is what the log records of a target URL: scheme, host and
// port (the scheme's default when none is given), never its user, path or
// query, which may carry credentials. nil for none.
func TargetOf(u *url.URL) *capture.HTTPTarget {
	if u == nil {
		return nil
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = map[string]int{"http": 80, "https": 443}[u.Scheme]
	}
	return &capture.HTTPTarget{Scheme: u.Scheme, Host: u.Hostname(), Port: port}
}

// DefaultLabel is the default label of a proxy's session: the target's
// host[:port].
func DefaultLabel(target *url.URL) string {
	if target != nil && target.Host != "" {
		return target.Host
	}
	return "http"
}

// CloseStreams ends the exchanges that never end on their own: the
// server's GET event streams and upgraded connections (a 101 Switching
// Protocols answer to any method), so that a shutdown need not wait for
// them. Ending an upgraded exchange closes both of its connections, the
// client's (hijacked, so no http.Server closes it) and the target's.
// Exchanges that begin afterwards are ended as they start streaming.
func (p *Proxy) CloseStreams() { p.stop() }

// Close ends every exchange in flight at once, and any begun after: their
// outbound requests are cancelled and their upgraded connections closed.
// The client connections of ordinary exchanges are the server's to close
// (http.Server.Close).
func (p *Proxy) Close() {
	p.stop()
	p.abort()
}

// Wait waits until no exchange is being served.
func (p *Proxy) Wait() { <-p.active.idle() }

// inflight counts the exchanges being served. Unlike a sync.WaitGroup it
// may be waited on while new exchanges still arrive.
type inflight struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed when n drops to 0
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.done = make(chan struct{})
	}
	f.n++
}

func (f *inflight) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.done)
	}
}

// idle is closed once no exchange is being served.
func (f *inflight) idle() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return f.done
}

// abortWait is how long Shutdown waits for exchanges after ending them.
const abortWait = 2 * time.Second

// Shutdown ends the event streams and upgraded connections (CloseStreams)
// and waits for the other exchanges to finish, until ctx is done; then it
// ends them all (Close) and waits at most abortWait more for their handlers
// to return, so that it always returns in bounded time. It returns
// ctx.Err() when exchanges had to be ended, or were still running when it
// gave up waiting.
func (p *Proxy) Shutdown(ctx context.Context) error {
	if p.ownWarn {
		defer p.warn.Close(capture.NoticeFlush)
	}
	p.CloseStreams()
	idle := p.active.idle()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	p.Close()
	idle = p.active.idle()
	t := time.NewTimer(abortWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
	return ctx.Err()
}

// exchangeKey finds an exchange's state in its request's context.
type exchangeKey struct{}

// exchangeState is one exchange as it goes through the proxy.
type exchangeState struct {
	x      *exchange
	sid    string // the request's Mcp-Session-Id
	body   *requestTap
	out    *flushWriter    // the client's side
	client context.Context // the client's request context, without the proxy's own cancel
	cancel context.CancelFunc

	mu       sync.Mutex
	upgraded func() bool // stops ending the exchange on CloseStreams, once upgraded
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.active.add()
	defer p.active.release()
	sid := r.Header.Get("Mcp-Session-Id")
	st := &exchangeState{sid: sid, x: requestExchange(r, p.sessions.conn(sid, r.RemoteAddr)), client: r.Context()}
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), exchangeKey{}, st))
	defer cancel()
	st.cancel = cancel
	defer context.AfterFunc(p.aborted, cancel)()
	if r.Method == http.MethodGet {
		// A GET is the server's event stream, which only the client ends.
		defer context.AfterFunc(p.closing, cancel)()
	}
	defer func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.upgraded != nil {
			st.upgraded()
		}
	}()
	r = r.WithContext(ctx)
	if p.log != nil && r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		// The request's place in the log is taken before any of it is
		// forwarded, so nothing that answers it can be logged first.
		st.body = &requestTap{src: r.Body, log: p.log, cp: logCopy{mem: p.log.mem}}
		st.body.cp.expect(r.ContentLength)
		st.body.t = p.log.begin(observation{kind: obsRequest, x: st.x}, false)
		r.Body = st.body
		defer st.body.complete(false)
	}
	if why := p.guard.CheckRequest(r); why != nil {
		p.refuse(st, w, why)
		return
	}
	st.out = newFlushWriter(w)
	defer st.out.finish()
	p.rp.ServeHTTP(st.out, r)
}

// rewrite points a request at the target.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	u := pr.Out.URL
	u.Scheme, u.Host = p.target.Scheme, p.target.Host
	if p.target.Path != "" && p.target.Path != "/" {
		u.Path, u.RawPath = p.target.Path, p.target.RawPath
	}
	if u.RawQuery == "" {
		u.RawQuery = p.target.RawQuery
	}
	pr.Out.Host = ""
	// Keep the chain the client's own proxies built, then add ourselves.
	for _, h := range []string{"X-Forwarded-For", "Forwarded"} {
		if v := pr.In.Header.Values(h); len(v) > 0 {
			pr.Out.Header[h] = append([]string(nil), v...)
		}
	}
	pr.SetXForwarded()
}

// modifyResponse starts observing a response, before any of it is
// forwarded: its place in the log is taken now. The body's last read is
// marked for the client's writer (lastRead), outside any tap.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	st, _ := resp.Request.Context().Value(exchangeKey{}).(*exchangeState)
	if st == nil {
		return nil
	}
	err := p.observeResponse(st, resp)
	if st.out != nil && resp.StatusCode != http.StatusSwitchingProtocols && resp.Body != nil {
		// (An upgraded connection's body is the target's connection, which
		// the reverse proxy needs to write to: it is not wrapped.)
		resp.Body = &lastRead{ReadCloser: resp.Body, resp: resp, out: st.out}
	}
	return err
}

// observeResponse is modifyResponse's part for the log and the sessions.
func (p *Proxy) observeResponse(st *exchangeState, resp *http.Response) error {
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && st.sid == "" {
		p.sessions.issued(id, st.x.conn)
	}
	if st.sid != "" && resp.Request.Method == http.MethodDelete && resp.StatusCode < 300 {
		defer p.sessions.forget(st.sid)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection, whatever the method, only ends when a
		// side closes it: CloseStreams ends it like an event stream (the
		// reverse proxy closes both connections when the request's context
		// is done).
		st.mu.Lock()
		if st.upgraded == nil {
			st.upgraded = context.AfterFunc(p.closing, st.cancel)
		}
		st.mu.Unlock()
	}
	if p.log == nil {
		return nil
	}
	info := &responseInfo{
		status:      resp.StatusCode,
		challenge:   strings.Join(resp.Header.Values("Www-Authenticate"), ", "),
		contentType: resp.Header.Get("Content-Type"),
	}
	coding, ok := decodableCoding(resp.Header.Values("Content-Encoding"))
	if resp.StatusCode == http.StatusSwitchingProtocols || !ok {
		// The body is not ours to wrap (an upgraded connection), or not one
		// the log can read: the status is all it gets.
		if !ok {
			p.warnCoding(coding)
		}
		p.log.add(observation{kind: obsResponse, x: st.x, resp: info})
		return nil
	}
	tap := &responseTap{src: resp.Body, log: p.log, x: st.x, info: info, cp: logCopy{mem: p.log.mem}}
	switch events := capture.MediaType(info.contentType) == "text/event-stream"; {
	case events && coding != "":
		tap.z = newZStream(coding, p.log.mem)
	case events:
		tap.sse = newSSEParser(tap.event, p.log.mem)
	default:
		tap.t = p.log.begin(observation{kind: obsResponse, x: st.x, resp: info, coding: coding}, false)
		tap.cp.expect(resp.ContentLength)
	}
	resp.Body = tap
	return nil
}

// errorHandler answers for a target that could not be reached: 502, logged
// after the request that failed. A client that went away gets nothing.
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	st, _ := r.Context().Value(exchangeKey{}).(*exchangeState)
	if st != nil && st.body != nil {
		// The request is logged whole even though the target never read
		// it; read it before the 502 goes out, after which it may be gone.
		st.body.complete(true)
	}
	switch {
	case st != nil && st.client.Err() != nil:
		return // the client went away: nobody to answer
	case r.Context().Err() != nil:
		// The proxy is shutting down and ended a stream before it began.
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	// The method and the path are the client's, the error may quote the
	// target's words: none of it may move a terminal's cursor or forge a
	// line of its own.
	p.warn.Say(fmt.Sprintf("mcpsnoop http: %s %s: %s\n", termsafe.Clean(r.Method, false), termsafe.Clean(r.URL.Path, false), termsafe.Clean(err.Error(), false)))
	if p.log != nil && st != nil {
		p.log.add(observation{kind: obsResponse, x: st.x, resp: &responseInfo{status: http.StatusBadGateway}})
	}
	w.WriteHeader(http.StatusBadGateway)
}

// refuse answers a request the DNS-rebinding guard refused, without
// forwarding it: the request is logged whole (as for a target that cannot
// be reached), then the 403, marked as the proxy's own. The first refusal
// is also said on the warn writer; the rest are only logged, so that a
// page that keeps trying cannot flood it.
func (p *Proxy) refuse(st *exchangeState, w http.ResponseWriter, why *hostcheck.Refusal) {
	if st.body != nil {
		st.body.complete(true)
	}
	if p.log != nil {
		p.log.add(observation{kind: obsResponse, x: st.x, resp: &responseInfo{status: http.StatusForbidden, byProxy: true}})
	}
	p.warnMu.Lock()
	first := !p.refused
	p.refused = true
	p.warnMu.Unlock()
	if first {
		p.warn.Say(fmt.Sprintf("mcpsnoop http: refused a request (403): %s; the log has each refusal (by_proxy), --allow-origin widens the guard\n", termsafe.Clean(why.Error(), false)))
	}
	hostcheck.Refuse(w, why, "mcpsnoop http")
}

func (p *Proxy) warnCoding(coding string) {
	p.warnMu.Lock()
	defer p.warnMu.Unlock()
	if p.unknown[coding] {
		return
	}
	p.unknown[coding] = true
	p.warn.Say(fmt.Sprintf("mcpsnoop http: warning: responses in content-coding %q are forwarded but only their status is logged\n", coding))
}

// requestExchange reads what the log records of a request's headers.
func requestExchange(r *http.Request, conn string) *exchange {
	h := r.Header
	x := &exchange{
		conn:        conn,
		method:      h.Get("Mcp-Method"),
		name:        h.Get("Mcp-Name"),
		version:     h.Get("Mcp-Protocol-Version"),
		contentType: h.Get("Content-Type"),
		accept:      strings.Join(h.Values("Accept"), ", "),
		origin:      h.Get("Origin"),
		host:        r.Host,
		httpMethod:  r.Method,
		httpPath:    r.URL.Path,
	}
	for name, values := range h {
		if len(name) > len("mcp-param-") && strings.EqualFold(name[:len("mcp-param-")], "mcp-param-") {
			canon := http.CanonicalHeaderKey(name)
			for _, v := range values {
				x.params = append(x.params, capture.ParamHeader{Name: canon, Value: v})
			}
		}
	}
	if len(x.params) < 2 {
		return x
	}
	sort.SliceStable(x.params, func(i, j int) bool {
		a, b := strings.ToLower(x.params[i].Name), strings.ToLower(x.params[j].Name)
		if a != b {
			return a < b
		}
		return x.params[i].Name < x.params[j].Name
	})
	return x
}

// requestTap observes a request body as the transport reads it. Closing
// it leaves the client's body open (the server closes it after the
// handler), so that a body the transport never read can still be logged.
type requestTap struct {
	src   io.ReadCloser
	log   *Log
	t     capture.Ticket
	atEOF atomic.Bool // src said io.EOF: it is not read again

	mu       sync.Mutex
	cp       logCopy // the log's copy of the body so far
	eof      bool    // the body was read to its end
	finished bool
}

func (b *requestTap) Read(p []byte) (int, error) {
	if b.atEOF.Load() {
		// The transport reads once more after the last byte (to check the
		// body is no longer than its Content-Length), possibly after the
		// handler returned and the server closed the client's body: that
		// read must not fail, or the transport drops the connection to the
		// target and the next request has to dial a new one.
		return 0, io.EOF
	}
	// The lock is not held across the read: a client that stalls must not
	// stall anything else that touches the tap.
	n, err := b.src.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == io.EOF {
		b.atEOF.Store(true)
	}
	if !b.finished {
		b.observe(p[:n])
		if err != nil {
			b.eof = err == io.EOF
			b.finishLocked()
		}
	}
	return n, err
}

func (b *requestTap) Close() error { return nil }

func (b *requestTap) observe(p []byte) { b.cp.add(p, capture.MaxLogLine) }

// complete logs the request with what was seen of its body. Only when the
// target was never reached (drain) does it read the rest itself, so that
// the failed request is logged whole; after a response has gone out it
// never waits on the client, and a body the target did not read in full is
// logged as truncated.
func (b *requestTap) complete(drain bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	var chunk [32 << 10]byte
	for drain && !b.cp.truncated {
		n, err := b.src.Read(chunk[:])
		b.observe(chunk[:n])
		if err != nil {
			b.eof = err == io.EOF
			break
		}
	}
	b.finishLocked()
}

func (b *requestTap) finishLocked() {
	if b.finished {
		return
	}
	b.finished = true
	data, truncated := b.cp.take()
	if b.log != nil {
		b.log.finish(b.t, data, truncated || !b.eof)
	}
}

// responseTap observes a response body as the proxy forwards it: each
// chunk before it is forwarded, so that an SSE event is numbered before
// the client can answer it. A body logged whole is copied as it arrives
// (compressed or not: the log decodes it); an identity event stream is cut
// into events as it arrives; a compressed event stream is handed to the log
// chunk by chunk, to be decoded on the writer's side (zstream).
type responseTap struct {
	src  io.ReadCloser
	log  *Log
	x    *exchange
	info *responseInfo
	sse  *sseParser     // an identity event stream
	z    *zstream       // a compressed event stream
	t    capture.Ticket // the body's place in the log, when logged whole

	mu       sync.Mutex
	cp       logCopy // the log's copy of the body so far, when logged whole
	seen     bool    // any byte arrived
	events   int     // SSE events logged
	ended    bool
	lostPart bool // a chunk of a compressed event stream did not reach the log
}

func (b *responseTap) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 && !b.ended {
		b.seen = true
		switch {
		case b.z != nil:
			b.chunk(p[:n])
		case b.sse != nil:
			b.sse.feed(p[:n])
		default:
			b.cp.add(p[:n], capture.MaxLogLine)
		}
	}
	if err != nil {
		b.endLocked(err == io.EOF)
	}
	return n, err
}

func (b *responseTap) Close() error {
	b.mu.Lock()
	b.endLocked(false)
	b.mu.Unlock()
	return b.src.Close()
}

// chunk hands the next chunk of a compressed event stream to the log.
// Once one is lost the rest cannot be decoded and are not queued.
func (b *responseTap) chunk(p []byte) {
	if b.lostPart {
		return
	}
	t := b.log.begin(observation{kind: obsZChunk, x: b.x, resp: b.info, z: b.z, body: bytes.Clone(p)}, true)
	b.lostPart = !t.OK()
}

// event logs one SSE event. Data that is only whitespace is no message.
func (b *responseTap) event(data []byte, truncated bool) {
	if !truncated && len(trimWS(data)) == 0 {
		return
	}
	b.events++
	b.log.add(observation{kind: obsResponse, x: b.x, resp: b.info, body: data, truncated: truncated})
}

// endLocked ends the observation: at the end of the body (clean), or when
// the proxy stopped reading it (the client went away, the target failed).
// A body cut short is logged as the fragment that arrived, marked
// truncated, so that it is not read as a message.
func (b *responseTap) endLocked(clean bool) {
	if b.ended {
		return
	}
	b.ended = true
	switch {
	case b.z != nil:
		// The decoder goroutine waits for the end: if the log cannot take
		// it, stop the decoder another way.
		end := observation{kind: obsZEnd, x: b.x, resp: b.info, z: b.z, clean: clean && !b.lostPart}
		if t := b.log.begin(end, true); !t.OK() {
			close(b.z.quit)
		}
	case b.sse != nil:
		b.sse.end(clean)
		if clean && b.events == 0 {
			// Nothing will ever answer the request this stream was for:
			// say so, in a status frame naming it (reply_to).
			info := *b.info
			info.streamEmpty = true
			b.log.add(observation{kind: obsResponse, x: b.x, resp: &info})
		}
	default:
		data, truncated := b.cp.take()
		b.log.finish(b.t, data, truncated || (!clean && b.seen))
	}
}

// sessionConns remembers which conn_id each MCP session was given, for a
// bounded number of sessions the server issued (the oldest are forgotten
// first). Ids are kept as fixed-size hashes, so a client sending huge or
// made-up ids costs nothing: an id the server never issued is not kept.
type sessionConns struct {
	mu    sync.Mutex
	m     map[sessionKey]sessionEntry
	order []sessionRef // insertion order; stale entries are skipped
	gen   uint64
}

type sessionKey [sha256.Size]byte

type sessionEntry struct {
	conn string
	gen  uint64
}

type sessionRef struct {
	key sessionKey
	gen uint64
}

const maxSessionConns = 4096

// conn is the conn_id of an exchange: its session's, when the server issued
// the id it names; else the client's own address.
func (s *sessionConns) conn(sid, remote string) string {
	if sid == "" {
		return remote
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[sessionKey(sha256.Sum256([]byte(sid)))]; ok {
		return e.conn
	}
	return remote
}

// issued records the conn_id of a session the server just opened.
func (s *sessionConns) issued(sid, conn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sessionKey(sha256.Sum256([]byte(sid)))
	if _, ok := s.m[k]; ok {
		return
	}
	if s.m == nil {
		s.m = map[sessionKey]sessionEntry{}
	}
	for len(s.m) >= maxSessionConns && len(s.order) > 0 {
		old := s.order[0]
		s.order = s.order[1:]
		if e, ok := s.m[old.key]; ok && e.gen == old.gen {
			delete(s.m, old.key)
		}
	}
	s.gen++
	s.m[k] = sessionEntry{conn: conn, gen: s.gen}
	s.order = append(s.order, sessionRef{k, s.gen})
	if len(s.order) > 2*maxSessionConns {
		live := make([]sessionRef, 0, len(s.m))
		for _, r := range s.order {
			if e, ok := s.m[r.key]; ok && e.gen == r.gen {
				live = append(live, r)
			}
		}
		s.order = live
	}
}

func (s *sessionConns) forget(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, sessionKey(sha256.Sum256([]byte(sid))))
}

// discardLog silences the reverse proxy's own error log: the proxy reports
// what matters on its warn writer.
var discardLog = log.New(io.Discard, "", 0)
