package hub

import (
	"strconv"
	"strings"
	"time"
)

// logBuilder writes one session's log, frame by frame, as a capture
// would: seqs in order, timestamps advancing by the gaps given.
type logBuilder struct {
	sid, label, transport string
	seq                   int
	t                     time.Time
	b                     strings.Builder
}

func newLog(sid, label, transport string) *logBuilder {
	return &logBuilder{sid: sid, label: label, transport: transport, t: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
}

// frame adds an envelope dt after the last; body is `"raw":...` or
// `"status":502` (or both, comma-separated).
func (l *logBuilder) frame(dir string, dt time.Duration, body string) *logBuilder {
	l.seq++
	l.t = l.t.Add(dt)
	l.b.WriteString(`{"session_id":"` + l.sid + `","server_label":"` + l.label + `","seq":` + strconv.Itoa(l.seq) +
		`,"ts":"` + l.t.Format(time.RFC3339Nano) + `","direction":"` + dir + `","transport":"` + l.transport + `",` + body + "}\n")
	return l
}

func (l *logBuilder) meta(command, cwd string) *logBuilder {
	return l.frame("meta", 0, `"raw":{"command":["`+command+`"],"cwd":"`+cwd+`"}`)
}

func (l *logBuilder) request(id int, method, params string) *logBuilder {
	return l.frame("c2s", time.Millisecond, `"raw":{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+method+`","params":`+params+`}`)
}

func (l *logBuilder) toolCall(id int, tool string) *logBuilder {
	return l.request(id, "tools/call", `{"name":"`+tool+`","arguments":{}}`)
}

func (l *logBuilder) result(id int, after time.Duration, result string) *logBuilder {
	return l.frame("s2c", after, `"raw":{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":`+result+`}`)
}

func (l *logBuilder) rpcError(id int, after time.Duration) *logBuilder {
	return l.frame("s2c", after, `"raw":{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"error":{"code":-32603,"message":"boom"}}`)
}

func (l *logBuilder) cancel(id int) *logBuilder {
	return l.frame("c2s", time.Millisecond, `"raw":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+strconv.Itoa(id)+`}}`)
}

// init is the initialize exchange.
func (l *logBuilder) init() *logBuilder {
	return l.request(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`).
		result(0, time.Millisecond, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
}

func (l *logBuilder) String() string { return l.b.String() }

// take returns what was written since the last take.
func (l *logBuilder) take() string {
	s := l.b.String()
	l.b.Reset()
	return s
}
