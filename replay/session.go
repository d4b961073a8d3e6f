package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/shellquote"
)

// DefaultCallTimeout is how long a replayed call may take by default.
const DefaultCallTimeout = 30 * time.Second

// maxRounds bounds the MRTR rounds of one replayed call, as the Go SDK's
// client does.
const maxRounds = 10

// Target is where a replay goes. A stdio replay runs Command (the recorded
// command when nil) through the mcpsnoop shim Shim; an HTTP replay posts to
// URL through mcpsnoop's HTTP proxy, run in this process. Either way the
// capture appends the replay to Log as a session of its own.
type Target struct {
	Command []string
	// Dir is the command's working directory: the recorded one for the
	// recorded command, the current one otherwise, when empty.
	Dir  string
	Shim string // the mcpsnoop executable that runs as the stdio shim
	// ShimArgs are more shim flags (--redact-*), put before the command.
	ShimArgs []string
	// URL is the Streamable HTTP endpoint; never taken from the log.
	URL string
	// Header is sent with every HTTP request (--replay-header): the only
	// way a credential reaches the server.
	Header http.Header
	// Redactor scrubs the HTTP replay's log as a capture would (the stdio
	// shim reads .mcpsnoop.toml in Dir itself); nil for none.
	Redactor *capture.Redactor
	Log      string // the replay log, appended to (created when missing)
	// LogInState says Log is a name mcpsnoop chose in the state directory
	// (replays/<session>.jsonl), opened without following a link another
	// user could have planted; a --replay-log the user named may be one.
	LogInState bool
	Stderr     io.Writer // the shim's and the server's stderr; nil discards it
}

// Options shape one replay.
type Options struct {
	// All replays every request, not only reads and tools annotated safe.
	All bool
	// CallTimeout bounds each call, MRTR rounds included (DefaultCallTimeout
	// when zero). The initialize handshake gets at least DefaultCallTimeout.
	CallTimeout time.Duration
	// Only, when set, picks the steps to replay (the viewer replays one);
	// the handshake is always sent.
	Only func(*Request) bool
	// Edited replaces the params of a request (the viewer's R): its
	// recorded Mcp-Param-* headers are then not sent.
	Edited map[*Request]json.RawMessage
	// ClientName and ClientVersion are the clientInfo the replay sends in
	// place of the recorded client's.
	ClientName, ClientVersion string
}

// Result is what one replay did.
type Result struct {
	Log       string // the replay log
	Offset    int64  // where this replay's frames start in Log
	SessionID string // the replay's session id in Log
	Target    string // where it went, in words
	Revision  string // the revision it spoke
	// Outcomes has one entry per request considered, in recorded order
	// (notifications are sent but not listed).
	Outcomes []*Outcome
	// Stopped says why the replay ended before its last request.
	Stopped string
	// Declined lists the server's questions that had no recorded answer.
	Declined []string
	// Notes are remarks on how the replay was made.
	Notes []string

	initID json.RawMessage // the id of the replay's initialize, nil when none was sent
}

// Outcome is one recorded request as it was replayed.
type Outcome struct {
	Request *Request
	// Skipped says why the request was not sent ("" when it was).
	Skipped string
	// NotOffered: a tools/call to a tool the replayed tools/list no longer
	// lists; it was not sent.
	NotOffered bool
	// ID is the raw id of the replay's first request for it.
	ID json.RawMessage
	// Answer is the final JSON-RPC answer, nil when none came.
	Answer json.RawMessage
	Status int // HTTP status of the final answer (0 on stdio)
	// Failure explains an answer that was not a plain JSON-RPC response,
	// or a declined question that ended the call.
	Failure  string
	TimedOut bool
	Rounds   int // MRTR retries sent
	Elapsed  time.Duration

	lastID json.RawMessage // the replay's last request for it (its last MRTR retry)
}

// Sent reports whether the request went to the server.
func (o *Outcome) Sent() bool { return o.Skipped == "" && !o.NotOffered }

// transport carries a replay's messages to the server and back. call
// answers the server's own requests meanwhile (through the session's
// answer function) and returns a stopError when nothing more can be sent.
type transport interface {
	call(ctx context.Context, x *exchange) (*reply, error)
	notify(ctx context.Context, x *exchange) error
	cancel(id json.RawMessage)
	setProtocol(version string)
	close() error
}

// exchange is one message as a transport sends it.
type exchange struct {
	id      json.RawMessage
	method  string
	name    string // the operation name, for Mcp-Name
	body    []byte
	headers []capture.ParamHeader // recorded Mcp-Param-* headers, sent verbatim
	// protocol is the revision the body's _meta declares, which the
	// MCP-Protocol-Version header must match; "" for the session's.
	protocol string
}

// reply is what came back for an exchange.
type reply struct {
	msg     json.RawMessage
	status  int
	failure string
}

// stopError ends a replay: no later request can succeed (a refused
// redirect, a 401, a server that is gone).
type stopError struct{ reason string }

func (e *stopError) Error() string { return e.reason }

// Describe says where a replay to t of rec would go, for the question
// asked before the first send and for reports.
func Describe(rec *Recording, t Target) (string, error) {
	if t.URL != "" {
		return t.URL, nil
	}
	cmd, dir, err := command(rec, t)
	if err != nil {
		return "", err
	}
	s := shellquote.Join(cmd) // bash -c 'node build/index.js', not bash -c node build/index.js
	if dir != "" {
		s += " (in " + dir + ")"
	}
	return s, nil
}

// command is the stdio command a replay runs and its directory.
func command(rec *Recording, t Target) ([]string, string, error) {
	if len(t.Command) > 0 {
		return t.Command, t.Dir, nil
	}
	if rec.Transport == capture.TransportHTTP {
		return nil, "", errors.New("an HTTP session is replayed only against an address you name (--replay-target URL), never against the recorded endpoint")
	}
	if len(rec.Command) == 0 {
		return nil, "", errors.New("the recording has no meta frame naming its server command; give the command to run after --")
	}
	dir := t.Dir
	if dir == "" {
		dir = rec.Cwd
	}
	return rec.Command, dir, nil
}

// Run replays rec against t. An error means the replay could not start
// (no target, a log that cannot be written, a shim that cannot run); what
// went wrong once it ran is in the Result.
func Run(ctx context.Context, rec *Recording, t Target, o Options) (*Result, error) {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.ClientName == "" {
		o.ClientName = "mcpsnoop-replay"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "0.0.0-dev"
	}
	desc, err := Describe(rec, t)
	if err != nil {
		return nil, err
	}
	// The shim runs in the server's directory (the recorded one, for the
	// recorded command) and the HTTP proxy in this one: a relative log
	// would be two different files.
	if t.Log != "" {
		if t.Log, err = filepath.Abs(t.Log); err != nil {
			return nil, fmt.Errorf("replay log: %w", err)
		}
	}
	offset, err := prepareLog(t.Log, t.LogInState)
	if err != nil {
		return nil, err
	}
	s := &session{rec: rec, o: o, res: &Result{Log: t.Log, Offset: offset, Target: desc},
		answers: map[string][]recordedAnswer{}, cursors: map[string]string{}}
	for m, q := range rec.answers {
		s.answers[m] = slices.Clone(q)
	}
	if t.URL != "" {
		s.conn, err = openHTTP(rec, t, s.answer)
	} else {
		cmd, dir, _ := command(rec, t)
		s.conn, err = openStdio(rec, t, cmd, dir, s.answer)
	}
	if err != nil {
		return nil, err
	}
	s.run(ctx)
	if err := s.conn.close(); err != nil && s.res.Stopped == "" {
		s.res.Notes = append(s.res.Notes, err.Error())
	}
	s.res.SessionID = sessionAt(t.Log, offset)
	return s.res, nil
}

// prepareLog creates the replay log (and, outside the state directory, its
// folders) when missing and returns its size: the offset this replay's
// frames start at.
func prepareLog(path string, inState bool) (int64, error) {
	if path == "" {
		return 0, errors.New("no replay log to write")
	}
	if inState {
		if dir := filepath.Dir(path); dir != "" {
			if _, err := os.Stat(dir); err != nil {
				return 0, fmt.Errorf("replay log %s: its folder %s does not exist", path, dir)
			}
		}
	} else if err := capture.MakeLogFolder(path); err != nil {
		// A log named with --replay-log gets its folder, as the shim's
		// --trace-file does.
		return 0, fmt.Errorf("replay log %s: %w", path, err)
	}
	open := os.OpenFile
	if inState {
		open = capture.OpenStateFile
	}
	f, err := open(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("replay log: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("replay log: %w", err)
	}
	if !info.Mode().IsRegular() {
		return 0, fmt.Errorf("replay log %s: not a regular file", path)
	}
	return info.Size(), nil
}

// sessionAt is the session id of the first frame at offset in path.
func sessionAt(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	fr, _, err := capture.NewReader(f, path).Next()
	if err != nil {
		return ""
	}
	return strings.Clone(fr.SessionID)
}

// session is one replay in progress.
type session struct {
	rec  *Recording
	o    Options
	res  *Result
	conn transport
	next int

	mu      sync.Mutex                  // guards answers and res.Declined (the stdio reader answers)
	answers map[string][]recordedAnswer // recorded answers not used yet

	cursors map[string]string // the live nextCursor of each list method
	// live holds the tools the replayed tools/list lists, each with its
	// annotations (nil for none); building is a tools/list being paged
	// through; listed says live is a complete listing, and unlisted why
	// the replay's own listing (listLive) could not make one.
	live     map[string]json.RawMessage
	building map[string]json.RawMessage
	listed   bool
	unlisted string
}

func (s *session) nextID() json.RawMessage {
	s.next++
	return json.RawMessage(strconv.Itoa(s.next))
}

func (s *session) run(ctx context.Context) {
	if s.rec.Modern() {
		s.res.Revision = s.rec.Revision
		s.conn.setProtocol(s.rec.Revision)
		if s.rec.ownMeta {
			s.res.Notes = append(s.res.Notes, "no recorded request declares its revision in _meta, so the replay gave each one a _meta of its own for "+s.rec.Revision)
		}
	} else if !s.handshake(ctx) {
		for _, r := range s.rec.Steps {
			if !r.Notification() && (s.o.Only == nil || s.o.Only(r)) {
				s.res.Outcomes = append(s.res.Outcomes, &Outcome{Request: r, Skipped: "the replay stopped: " + s.res.Stopped})
			}
		}
		return
	}
	if s.needsLiveListing() {
		s.listLive(ctx)
	}
	for _, r := range s.rec.Steps {
		if s.o.Only != nil && !s.o.Only(r) {
			continue
		}
		params, edited := r.Params, json.RawMessage(nil)
		if p, ok := s.o.Edited[r]; ok {
			params, edited = p, p
		}
		if r.Notification() {
			if s.res.Stopped == "" && s.rec.SkipReason(r, s.o.All, edited) == "" {
				s.send(ctx, r, params)
			}
			continue
		}
		out := &Outcome{Request: r}
		s.res.Outcomes = append(s.res.Outcomes, out)
		if s.res.Stopped != "" {
			out.Skipped = "the replay stopped: " + s.res.Stopped
			continue
		}
		if why := s.rec.SkipReason(r, s.o.All, edited); why != "" {
			out.Skipped = why
			continue
		}
		name := r.Name
		if edited != nil {
			name = operationName(r.Method, params)
		}
		if r.Method == "tools/call" {
			if _, offered := s.live[name]; s.listed && !offered {
				out.NotOffered = true
				continue
			}
			if why := s.liveSkipReason(name); why != "" {
				out.Skipped = why
				continue
			}
		}
		var headers []capture.ParamHeader
		if edited == nil {
			headers = r.Headers
		}
		s.call(ctx, out, &exchange{method: r.Method, name: name, headers: headers, protocol: r.Declared}, s.prepare(r, params))
	}
}

// handshake initializes a session of a revision before Modern: the
// recorded initialize with the replay's own clientInfo, then
// notifications/initialized. It reports false when the replay cannot go on.
func (s *session) handshake(ctx context.Context) bool {
	if why := s.rec.InitSkipReason(); why != "" {
		s.res.Stopped = why
		return false
	}
	params := json.RawMessage(nil)
	if s.rec.Init != nil {
		params = s.rec.Init.Params
	} else {
		rev := s.rec.Revision
		if rev == "" || rev >= Modern {
			rev = DefaultLegacy
		}
		params = encode(map[string]any{"protocolVersion": rev, "capabilities": s.capabilities()})
		s.res.Notes = append(s.res.Notes, "the recording holds no initialize, so the replay sent its own for "+rev)
	}
	params = set(params, "clientInfo", s.clientInfo())
	// The server is starting (an npx may be downloading it): the handshake
	// gets at least the default call timeout, whatever the calls get.
	wait := max(s.o.CallTimeout, DefaultCallTimeout)
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	x := &exchange{id: s.nextID(), method: "initialize"}
	x.body = request(x.id, x.method, params)
	s.res.initID = x.id
	rep, err := s.conn.call(cctx, x)
	switch {
	case err != nil && cctx.Err() != nil:
		s.res.Stopped = fmt.Sprintf("the server did not answer initialize within %s", wait)
		return false
	case err != nil:
		s.res.Stopped = "initialize failed: " + err.Error()
		return false
	case rep.msg == nil:
		s.res.Stopped = "initialize failed: " + rep.failure
		return false
	}
	if e, ok := decodeError(errorOf(rep.msg)); ok {
		s.res.Stopped = fmt.Sprintf("the server refused initialize: %s (code %d)", e.Message, e.Code)
		return false
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(resultOf(rep.msg), &r)
	s.res.Revision = r.ProtocolVersion
	s.conn.setProtocol(r.ProtocolVersion)
	s.send(ctx, &Request{Method: "notifications/initialized"}, nil)
	return s.res.Stopped == ""
}

// send sends the notification r with params; a transport that cannot go
// on stops the replay.
func (s *session) send(ctx context.Context, r *Request, params json.RawMessage) {
	if len(params) > 0 {
		params = s.prepare(r, params)
	}
	x := &exchange{method: r.Method, protocol: r.Declared, body: request(nil, r.Method, params)}
	cctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
	defer cancel()
	var stop *stopError
	if err := s.conn.notify(cctx, x); errors.As(err, &stop) {
		s.res.Stopped = stop.reason
	}
}

// call sends one request (x without its id and body) and waits for its
// final answer, retrying MRTR rounds with the recorded input.
func (s *session) call(ctx context.Context, out *Outcome, x *exchange, params json.RawMessage) {
	s.callWithin(ctx, s.o.CallTimeout, out, x, params)
}

// callWithin is call with a time limit of its own.
func (s *session) callWithin(ctx context.Context, limit time.Duration, out *Outcome, x *exchange, params json.RawMessage) {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	defer func() { out.Elapsed = time.Since(start) }()
	method, first := x.method, *x
	x.id = s.nextID()
	x.body = request(x.id, method, params)
	out.ID = x.id
	for {
		out.lastID = x.id
		rep, err := s.conn.call(cctx, x)
		if err != nil {
			var stop *stopError
			switch {
			case errors.As(err, &stop):
				s.res.Stopped = stop.reason
				out.Failure = stop.reason
			case cctx.Err() != nil:
				out.TimedOut = true
				s.conn.cancel(x.id)
			default:
				out.Failure = err.Error()
			}
			return
		}
		out.Answer, out.Status, out.Failure = rep.msg, rep.status, rep.failure
		ir, more := inputRequired(rep.msg)
		if !more {
			s.observe(method, params, rep.msg)
			return
		}
		if out.Rounds >= maxRounds {
			out.Failure = fmt.Sprintf("the server still asked for input after %d rounds; the replay gave up", maxRounds)
			return
		}
		responses, why := s.inputAnswers(out.Request, out.Rounds, ir.InputRequests)
		if why != "" {
			out.Failure = why
			return
		}
		retry := set(params, "inputResponses", encode(responses))
		m := object(retry)
		delete(m, "requestState")
		if ir.RequestState != nil {
			m["requestState"] = encode(*ir.RequestState)
		}
		out.Rounds++
		next := first
		x = &next
		x.id = s.nextID()
		x.body = request(x.id, method, encode(m))
	}
}

// observe keeps what later requests depend on: the live cursor of a list
// method and the tools the replayed listing offers.
func (s *session) observe(method string, params, msg json.RawMessage) {
	var res struct {
		NextCursor *string `json:"nextCursor"`
		Tools      []struct {
			Name        string          `json:"name"`
			Annotations json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(resultOf(msg), &res) != nil {
		return
	}
	if listMethods[method] {
		s.cursors[method] = ""
		if res.NextCursor != nil {
			s.cursors[method] = *res.NextCursor
		}
	}
	if method != "tools/list" || resultOf(msg) == nil {
		return
	}
	if _, paged := object(params)["cursor"]; !paged || s.building == nil {
		s.building = map[string]json.RawMessage{}
	}
	for _, t := range res.Tools {
		s.building[t.Name] = t.Annotations
	}
	if res.NextCursor == nil {
		s.live, s.listed, s.building = s.building, true, nil
	}
}

// listMethods are the paginated list requests.
var listMethods = map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true}

// prepare adapts the params of r to the live server: a list request's
// cursor becomes the one the live server issued, and a request whose
// recorded _meta declares a revision keeps that _meta with the replay's
// clientInfo in place of the recorded client's (keys an edit dropped come
// back from the recording). Nothing else gets a _meta: a request that
// declared no revision was not a 2026-07-28 request (a ping, say), and one
// is not made of it. Only a modern recording whose requests declare
// nothing at all (ownMeta) has every request given a _meta of the
// replay's own.
func (s *session) prepare(r *Request, params json.RawMessage) json.RawMessage {
	if listMethods[r.Method] {
		if _, ok := object(params)["cursor"]; ok {
			if c := s.cursors[r.Method]; c != "" {
				params = set(params, "cursor", encode(c))
			}
		}
	}
	switch {
	case r.Declared != "":
		m := object(params)
		meta := object(m["_meta"])
		for k, v := range object(object(r.Params)["_meta"]) {
			if _, ok := meta[k]; !ok {
				meta[k] = v
			}
		}
		meta[metaClientInfo] = s.clientInfo()
		m["_meta"] = encode(meta)
		return encode(m)
	case s.rec.ownMeta:
		return s.ownMeta(params)
	}
	return params
}

// ownMeta gives params a _meta of the replay's own for the recorded
// (Modern) revision: the revision, the replay's clientInfo and, unless
// params carry them, the capabilities the recorded server used.
func (s *session) ownMeta(params json.RawMessage) json.RawMessage {
	m := object(params)
	meta := object(m["_meta"])
	meta[metaProtocolVersion] = encode(s.rec.Revision)
	meta[metaClientInfo] = s.clientInfo()
	if _, ok := meta[metaClientCapabilities]; !ok {
		meta[metaClientCapabilities] = encode(s.capabilities())
	}
	m["_meta"] = encode(meta)
	return encode(m)
}

func (s *session) clientInfo() json.RawMessage {
	return encode(map[string]string{"name": s.o.ClientName, "version": s.o.ClientVersion})
}

// capabilities are what the replay declares when the recording does not
// say: the kinds of input the recorded server asked for.
func (s *session) capabilities() map[string]any {
	caps := map[string]any{}
	for k := range s.rec.capsUsed {
		caps[k] = map[string]any{}
	}
	return caps
}
