package checker

import (
	"encoding/json"
	"sort"

	"github.com/mcpsnoop/mcpsnoop/checker/toolschema"
	"github.com/tidwall/gjson"
)

// What the engine keeps only when Config.KeepBodies asks for it: the bodies
// of calls and the session's capabilities, which exports and the viewer
// show and check never needs.

// Capabilities is what the two sides said about themselves, as raw JSON
// (nil when not seen).
type Capabilities struct {
	ProtocolVersion string
	ClientInfo      json.RawMessage
	ServerInfo      json.RawMessage
	Client          json.RawMessage
	Server          json.RawMessage
	Instructions    string
	HasInstructions bool
}

// Seen reports whether anything was learnt.
func (c *Capabilities) Seen() bool {
	return c.ProtocolVersion != "" || c.ClientInfo != nil || c.ServerInfo != nil ||
		c.Client != nil || c.Server != nil || c.HasInstructions
}

func rawCopy(v gjson.Result) json.RawMessage {
	if !v.Exists() {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// keepRequest records the request's params and what it says of the client.
func (s *session) keepRequest(fc *frameCtx, c *call) {
	if !s.e.cfg.KeepBodies {
		return
	}
	m := &fc.msg
	if m.params.Exists() {
		c.params = []byte(m.params.Raw)
	}
	if fc.f.Direction != "c2s" {
		return
	}
	caps := &s.caps
	if m.method == "initialize" {
		if v := m.paramField("protocolVersion"); v.Type == gjson.String {
			caps.ProtocolVersion = clone(v.Str)
		}
		if v := m.paramField("clientInfo"); v.Exists() {
			caps.ClientInfo = rawCopy(v)
		}
		if v := m.paramField("capabilities"); v.Exists() {
			caps.Client = rawCopy(v)
		}
	}
	if !m.paramField("_meta").IsObject() {
		return
	}
	if v := m.metaField("io.modelcontextprotocol/protocolVersion"); v.Type == gjson.String && v.Str != "" {
		caps.ProtocolVersion = clone(v.Str)
	}
	if v := m.metaField("io.modelcontextprotocol/clientInfo"); v.Exists() {
		caps.ClientInfo = rawCopy(v)
	}
	if v := m.metaField("io.modelcontextprotocol/clientCapabilities"); v.Exists() {
		caps.Client = rawCopy(v)
	}
}

// keepAnswer records an answer's result or error on its call, and what a
// result says of the server.
func (s *session) keepAnswer(fc *frameCtx, c *call) {
	m := &fc.msg
	c.toolError = c.toolError || m.isErrorResult()
	s.noteServerName(fc, c)
	if !s.e.cfg.KeepBodies {
		return
	}
	c.result, c.errRaw = nil, nil
	if m.hasResult {
		c.result = []byte(m.result.Raw)
	}
	if m.hasError {
		c.errRaw = []byte(m.errorVal.Raw)
	}
	if !m.hasResult || !m.result.IsObject() {
		return
	}
	caps := &s.caps
	if c.method == "initialize" || c.method == "server/discover" {
		if v := m.resultField("protocolVersion"); v.Type == gjson.String {
			caps.ProtocolVersion = clone(v.Str)
		}
		if v := m.resultField("serverInfo"); v.Exists() {
			caps.ServerInfo = rawCopy(v)
		}
		if v := m.resultField("capabilities"); v.Exists() {
			caps.Server = rawCopy(v)
		}
		if v := m.resultField("instructions"); v.Type == gjson.String {
			caps.Instructions, caps.HasInstructions = clone(v.Str), true
		}
	}
	if v := m.resultField("_meta"); v.IsObject() {
		if si := v.Get(escapeKey("io.modelcontextprotocol/serverInfo")); si.Exists() {
			caps.ServerInfo = rawCopy(si)
		}
	}
}

// keepTaskOutcome records what a task's terminal report carried.
func (s *session) keepTaskOutcome(c *call, result, errVal gjson.Result) {
	if result.IsObject() && result.Get("isError").Type == gjson.True {
		c.toolError = true
	}
	if !s.e.cfg.KeepBodies {
		return
	}
	if result.Exists() {
		c.result = []byte(result.Raw)
	}
	if errVal.Exists() {
		c.errRaw = []byte(errVal.Raw)
	}
}

// ToolCost is what one advertised tool costs a client's context, measured
// on compact JSON (capture-store-export.md 6.13).
type ToolCost struct {
	Name             string
	Bytes            int
	DescriptionBytes int
	SchemaBytes      int
	Findings         []string // observational schema kinds, report order
}

// toolCosts measures the advertised tools, heaviest first, then by name.
func (s *session) toolCosts() []ToolCost {
	out := make([]ToolCost, 0, len(s.inv.tools))
	for _, t := range s.inv.tools {
		tool := gjson.ParseBytes(t.raw)
		c := ToolCost{Name: t.name, Bytes: compactLen(t.raw)}
		if d := tool.Get("description"); d.Exists() {
			c.DescriptionBytes = compactLen([]byte(d.Raw))
		}
		if in := tool.Get("inputSchema"); in.Exists() {
			c.SchemaBytes = compactLen([]byte(in.Raw))
		}
		c.Findings = toolschema.Kinds(tool.Get("inputSchema"), tool.Get("outputSchema"), t.redacted)
		out = append(out, c)
	}
	sortToolCosts(out)
	return out
}

// compactLen is the length of b with insignificant whitespace removed.
func compactLen(b []byte) int {
	n, inString, escaped := 0, false, false
	for _, ch := range b {
		switch {
		case inString:
			n++
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
		default:
			if ch == '"' {
				inString = true
			}
			n++
		}
	}
	return n
}

func sortToolCosts(c []ToolCost) {
	sort.SliceStable(c, func(i, j int) bool {
		if c[i].Bytes != c[j].Bytes {
			return c[i].Bytes > c[j].Bytes
		}
		return c[i].Name < c[j].Name
	})
}
