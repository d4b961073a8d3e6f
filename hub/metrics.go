package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/prometheus/client_golang/prometheus"
)

// The metric families a hub exports (README "Watching a fleet" lists
// them).
const (
	MetricCalls     = "mcpsnoop_tool_calls_total"
	MetricErrors    = "mcpsnoop_tool_errors_total"
	MetricDuration  = "mcpsnoop_tool_call_duration_seconds"
	MetricTransport = "mcpsnoop_transport_errors_total"
	MetricSessions  = "mcpsnoop_sessions_total"
)

// DurationBuckets are the latency histogram's upper bounds, in seconds.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Bounds on what comes off the wire: a label value is cut to MaxLabelBytes
// (at a character boundary), and past MaxSeries distinct tool series (a
// server, server_id and tool) a hub counts the rest under
// tool=OverSeriesCap (a tool series being its calls, its latency and its
// two error counters, which exist at 0 from its first call), so a peer
// choosing tool names decides neither the
// hub's memory nor the size of a scrape. Transport series (a server and a
// status) have a cap of their own, the rest counted under
// server=OverSeriesCap, and so are the servers past MaxSeries distinct
// ones. Totals stay right either way.
const (
	MaxLabelBytes = 128
	MaxSeries     = 2000
	OverSeriesCap = "(over-series-cap)"
)

// Error types of mcpsnoop_tool_errors_total.
const (
	ErrorTool     = "tool"     // a result marked isError
	ErrorProtocol = "protocol" // a JSON-RPC error or another protocol failure
)

// maxSessions bounds the sessions whose server a hub remembers across
// logs, and those one log remembers; past it the least recently seen
// quarter is forgotten. A log's sessions stay known for as long as the log
// is followed, however many other sessions the hub sees meanwhile, so a
// long session keeps its server_id.
const maxSessions = 4096

// Metrics counts what the engines of followed logs say: finished tool
// calls, their latency and errors, and transport failures, per server. It
// is fed by the engines' callbacks (Config) and read by Prometheus
// through Registry. Nothing is counted until Count is called: a hub loads
// its history first, and that is not new traffic.
type Metrics struct {
	reg       *prometheus.Registry
	calls     *prometheus.CounterVec
	errors    *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	transport *prometheus.CounterVec
	sessions  *prometheus.CounterVec

	mu       sync.Mutex
	counting bool
	backlog  bool                      // reading a log's backlog: not new traffic
	logs     map[string]*logServers    // followed log -> its sessions' servers
	recent   map[string]*sessionServer // session id -> its server, across logs
	clock    uint64
	known    map[server]bool    // admitted servers
	tools    map[[3]string]bool // admitted tool series
	statuses map[[3]string]bool // admitted transport series
}

// logServers are the servers of one log's sessions, identified when the
// log showed each session's first frame (its meta frame for a capture),
// kept while the log is followed.
type logServers struct {
	servers map[string]*sessionServer
}

// server is how a session's server is labelled.
type server struct {
	name string // the server label, bounded
	id   string // its fingerprint
}

type sessionServer struct {
	server
	touched uint64
}

// NewMetrics returns the families, registered in a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricCalls,
			Help: "Finished MCP tool calls (tools/call answered, with a result or an error) seen since the hub started.",
		}, []string{"server", "server_id", "tool"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricErrors,
			Help: "Finished MCP tool calls that failed: error_type tool for a result marked isError, protocol for a JSON-RPC error or another protocol failure.",
		}, []string{"server", "server_id", "tool", "error_type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricDuration,
			Help:    "Latency of finished MCP tool calls, request to final answer. Pending, superseded and cancelled-without-result calls add no observation.",
			Buckets: DurationBuckets,
		}, []string{"server", "server_id", "tool"}),
		transport: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricTransport,
			Help: "HTTP failures that never became a JSON-RPC message (a 502 from a gateway, a 401 challenge), by status. Every server seen has a sample with an empty status, zero until it fails.",
		}, []string{"server", "server_id", "status"}),
		sessions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricSessions,
			Help: "Sessions that began since the hub started (history loaded at start is not counted).",
		}, []string{"server", "server_id"}),
		logs:     map[string]*logServers{},
		recent:   map[string]*sessionServer{},
		known:    map[server]bool{},
		tools:    map[[3]string]bool{},
		statuses: map[[3]string]bool{},
	}
	m.reg.MustRegister(m.calls, m.errors, m.duration, m.transport, m.sessions)
	return m
}

// Registry is what /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Count starts counting: call it once the history is loaded.
func (m *Metrics) Count() {
	m.mu.Lock()
	m.counting = true
	m.mu.Unlock()
}

// Config is the engine configuration of followed log path: its frames and
// calls come to m. A later engine of the same log (the follower released
// the last one) finds the servers of its sessions where the last left
// them.
func (m *Metrics) Config(path string) checker.Config {
	m.mu.Lock()
	ls := m.logs[path]
	if ls == nil {
		ls = &logServers{servers: map[string]*sessionServer{}}
		m.logs[strings.Clone(path)] = ls
	}
	m.mu.Unlock()
	// Findings are not needed here: keep the fewest.
	return checker.Config{
		OnFrame:     func(ev *checker.FrameEvent) { m.frame(ls, ev) },
		OnCall:      func(r checker.CallRecord) { m.call(ls, r) },
		MaxFindings: 1,
	}
}

// Forget drops what m keeps of a log no longer followed.
func (m *Metrics) Forget(path string) {
	m.mu.Lock()
	delete(m.logs, path)
	m.mu.Unlock()
}

// Backlog says m is reading (or done reading) the backlog of a log: what
// it held before the hub started without being loaded as history, which
// is not new traffic (see Follower.Backlog).
func (m *Metrics) Backlog(_ string, reading bool) {
	m.mu.Lock()
	m.backlog = reading
	m.mu.Unlock()
}

// frame notes a session's server and counts transport failures.
func (m *Metrics) frame(ls *logServers, ev *checker.FrameEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, fresh := m.serverOf(ls, ev)
	counting := m.counting && !m.backlog
	if fresh && counting && ev.Ordinal == 0 {
		// A session met while loading history, or joined midway, is not
		// counted as one that began.
		m.sessions.WithLabelValues(srv.name, srv.id).Inc()
	}
	if ev.Kind != checker.EventTransport || ev.Frame.Status < 400 || !counting {
		return
	}
	status := strconv.Itoa(ev.Frame.Status)
	key := [3]string{srv.name, srv.id, status}
	if !m.statuses[key] {
		if len(m.statuses) >= MaxSeries {
			key = [3]string{OverSeriesCap, OverSeriesCap, status}
		} else {
			m.statuses[key] = true
		}
	}
	m.transport.WithLabelValues(key[0], key[1], key[2]).Inc()
}

// serverOf returns the server of ev's session, identifying it on the
// session's first frame (fresh): the log's own record first, then one
// another log made of the session.
func (m *Metrics) serverOf(ls *logServers, ev *checker.FrameEvent) (srv server, fresh bool) {
	m.clock++
	if s := ls.servers[ev.SessionID]; s != nil {
		s.touched = m.clock
		return s.server, false
	}
	if len(ls.servers) >= maxSessions {
		forgetOldest(ls.servers, touchedAt)
	}
	if s := m.recent[ev.SessionID]; s != nil {
		s.touched = m.clock
		ls.servers[strings.Clone(ev.SessionID)] = s
		return s.server, false
	}
	if len(m.recent) >= maxSessions {
		forgetOldest(m.recent, touchedAt)
	}
	f := ev.Frame
	var meta capture.SessionMeta
	if f.Direction == capture.Meta {
		_ = json.Unmarshal(f.Raw, &meta)
	}
	srv = server{name: boundLabel(f.ServerLabel), id: ServerID(f.Transport, f.ServerLabel, meta.Command, meta.Cwd)}
	if !m.known[srv] {
		if len(m.known) >= MaxSeries {
			srv = server{name: OverSeriesCap, id: OverSeriesCap}
		}
		m.known[srv] = true
		// Every server seen has its zero samples, so a healthy hub's
		// graphs are flat rather than absent. They are the servers' own
		// (bounded by the servers' cap), not transport series of the cap.
		m.transport.WithLabelValues(srv.name, srv.id, "")
		m.sessions.WithLabelValues(srv.name, srv.id)
	}
	s := &sessionServer{server: srv, touched: m.clock}
	sid := strings.Clone(ev.SessionID)
	ls.servers[sid] = s
	m.recent[sid] = s
	return srv, true
}

func touchedAt(s *sessionServer) uint64 { return s.touched }

// call counts a finished tool call.
func (m *Metrics) call(ls *logServers, r checker.CallRecord) {
	if !r.IsTool || !r.HasDuration {
		return // not a tool call, or not finished: pending, superseded, cancelled without a result
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.counting || m.backlog {
		return
	}
	s := ls.servers[r.SessionID]
	if s == nil {
		return // its session was forgotten mid-call: only past maxSessions sessions in one log
	}
	key := [3]string{s.name, s.id, boundLabel(r.Name)}
	if !m.tools[key] {
		if len(m.tools) >= MaxSeries {
			key[2] = OverSeriesCap
		} else {
			m.tools[key] = true
		}
		// Both error series of a tool exist from its first call, at 0, so
		// an error ratio has data on a healthy day. They are the tool's
		// series, inside MaxSeries.
		m.errors.WithLabelValues(key[0], key[1], key[2], ErrorTool)
		m.errors.WithLabelValues(key[0], key[1], key[2], ErrorProtocol)
	}
	m.calls.WithLabelValues(key[:]...).Inc()
	m.duration.WithLabelValues(key[:]...).Observe(r.Duration.Seconds())
	switch {
	case r.IsError && r.ToolError:
		m.errors.WithLabelValues(key[0], key[1], key[2], ErrorTool).Inc()
	case r.IsError:
		m.errors.WithLabelValues(key[0], key[1], key[2], ErrorProtocol).Inc()
	}
}

// ServerID is the stable short fingerprint of a recorded server identity:
// 12 hex digits of SHA-256 over the transport, the label and, for a stdio
// server, the command line and working directory its meta frame recorded.
// Two servers with one label stay apart, and the id shows none of what it
// is made of (command, path, endpoint); no session id goes into it, so
// every session of a server has the same one.
func ServerID(transport, label string, command []string, cwd string) string {
	h := sha256.New()
	for _, p := range append([]string{"mcpsnoop-server", transport, label, cwd}, command...) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// boundLabel makes a value off the wire a label value: valid UTF-8, at
// most MaxLabelBytes (cut at a character boundary).
func boundLabel(s string) string {
	if len(s) > 4*MaxLabelBytes {
		s = s[:4*MaxLabelBytes] // a huge name: only its start matters
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxLabelBytes {
		return strings.Clone(s)
	}
	cut := MaxLabelBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut])
}
