package checker_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// memStore is an in-memory BaselineStore keyed by label, noting the keys
// it was asked about; names and held make it answer as package baseline
// does for a renamed server and for a log from elsewhere.
type memStore struct {
	tools map[string][]tooldef.Tool
	err   error
	names []string // OtherNames to answer for a label it has no baseline of
	held  bool     // record nothing: hold
	keys  []checker.BaselineKey
}

func (m *memStore) Location() string { return "/baselines" }
func (m *memStore) Observe(key checker.BaselineKey, defs []tooldef.Tool) (checker.BaselineObservation, error) {
	m.keys = append(m.keys, key)
	if m.err != nil {
		return checker.BaselineObservation{}, m.err
	}
	if before, ok := m.tools[key.Label]; ok {
		return checker.BaselineObservation{Version: 2, Tools: before}, nil
	}
	if m.names != nil {
		return checker.BaselineObservation{OtherNames: m.names}, nil
	}
	m.tools[key.Label] = defs
	return checker.BaselineObservation{Created: true, Held: m.held, Version: 2}, nil
}

func listing(sid, label, tools string, cursor string) string {
	next := ""
	if cursor != "" {
		next = `,"nextCursor":"` + cursor + `"`
	}
	return strings.ReplaceAll(logOf(sid,
		`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`2 s2c 5 {"jsonrpc":"2.0","id":1,"result":{"tools":[`+tools+`]`+next+`}}`), `"server_label":"srv"`, `"server_label":"`+label+`"`)
}

const toolA = `{"name":"a","description":"old","inputSchema":{"type":"object"}}`

func TestBaselineInEngine(t *testing.T) {
	drift := []checker.Signal{checker.SignalDrift}
	tests := []struct {
		name     string
		failOn   []checker.Signal
		store    *memStore
		log      string
		verdict  checker.Verdict
		drift    []int // per session
		findings []string
	}{
		{name: "recording is not a failure without the drift gate", log: listing("s1", "srv", toolA, ""),
			verdict: checker.Passed, drift: []int{0},
			findings: []string{"note mcpsnoop/drift session s1: recorded first-seen tool baseline (trusted, not verified)"}},
		{name: "a drift gate that could only record fails", failOn: drift, log: listing("s1", "srv", toolA, ""),
			verdict: checker.Failed, drift: []int{1},
			findings: []string{"error mcpsnoop/drift session s1: recorded first-seen tool baseline (trusted, not verified)"}},
		{name: "a later session of the same label verifies", failOn: drift,
			log:     listing("s1", "srv", toolA, "") + listing("s2", "srv", `{"name":"a","description":"new","inputSchema":{"type":"object"}}`, ""),
			verdict: checker.Failed, drift: []int{0, 1},
			findings: []string{
				"note mcpsnoop/drift session s1: recorded first-seen tool baseline (trusted, not verified)",
				`error mcpsnoop/drift session s2: tool "a" description changed: "old" → "new"`,
			}},
		{name: "an incomplete listing is not compared", failOn: drift, log: listing("s1", "srv", toolA, "page2"),
			verdict: checker.Passed, drift: []int{0}},
		{name: "no label is a baseline error", log: listing("s1", "", toolA, ""),
			verdict: checker.Passed, drift: []int{1},
			findings: []string{`note mcpsnoop/drift session s1: tool baseline error: session "s1" has no server label; a tool baseline needs a stable label, set one with --label`}},
		{name: "a store failure is a baseline error", failOn: drift, store: &memStore{err: errors.New("disk full")}, log: listing("s1", "srv", toolA, ""),
			verdict: checker.Failed, drift: []int{1},
			findings: []string{"error mcpsnoop/drift session s1: tool baseline error: disk full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := tt.store
			if store == nil {
				store = &memStore{tools: map[string][]tooldef.Tool{}}
			}
			rep := check(t, checker.Config{FailOn: tt.failOn, Baseline: store}, tt.log)
			if rep.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s", rep.Verdict, tt.verdict)
			}
			for i, want := range tt.drift {
				if got := rep.Sessions[i].Counters.Drift; got != want {
					t.Errorf("session %d drift = %d, want %d", i, got, want)
				}
			}
			if got := strings.Join(messages(rep), "\n"); got != strings.Join(tt.findings, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", got, strings.Join(tt.findings, "\n"))
			}
		})
	}
}

// W16, the schema observations and the deprecation notes all come from one
// listing and its neighbours.
func TestToolListingSignals(t *testing.T) {
	log := logOf("s",
		`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`2 s2c 5 {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"}]},"y":{}}}},{"name":"b","inputSchema":{"type":"array"}},{"name":"c"}],"nextCursor":"p2"}}`,
		`3 c2s 6 {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}`,
		`4 s2c 7 {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"string"}},{"name":"d","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}]}}`,
		`5 s2c 8 {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`6 c2s 9 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}`,
		`7 s2c 10 {"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"},"s":{"method":"sampling/createMessage"}}}}`,
	)
	all, _ := checker.ParseFailOn("warn,deprecated,schema,pending")
	rep := check(t, checker.Config{FailOn: all}, log)
	s := rep.Sessions[0]
	want := checker.Counters{Warnings: 1, Deprecated: 2, SchemaFindings: 3, Pending: 1}
	if s.Counters != want {
		t.Errorf("counters = %+v, want %+v", s.Counters, want)
	}
	got := strings.Join(messages(rep), "\n")
	for _, w := range []string{
		`error mcpsnoop/warn session s line 2: tool "b" advertises an inputSchema with root type "array", and 2026-07-28 requires one whose root type is "object", tool "c" advertises no inputSchema, and 2026-07-28 requires one whose root type is "object"`,
		"error mcpsnoop/deprecated session s line 5: logging notifications/message is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead",
		"error mcpsnoop/deprecated session s line 7: roots is deprecated (2026-07-28); use tool parameters, resource URIs, or server configuration instead; sampling is deprecated (2026-07-28); integrate directly with an LLM provider API instead",
		`error mcpsnoop/schema session s: tool schemas name a JSON Schema dialect other than 2020-12, which MCP assumes: dialect "http://json-schema.org/draft-07/schema#" in 1 tool: "d"`,
		`error mcpsnoop/schema session s: tool "a" schema uses anyOf`,
		`error mcpsnoop/schema session s: tool "a" schema uses untypedProperty`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing finding %q in:\n%s", w, got)
		}
	}
	// The second page's "a" is a duplicate: the first definition wins, so it
	// gets no W16 of its own.
	if strings.Contains(got, `tool "a" advertises`) {
		t.Errorf("a duplicate tool was judged:\n%s", got)
	}
	if n := len(s.SchemaFindings); n != 3 || s.SchemaFindings[0].Kind != "nonDefaultDialect" {
		t.Errorf("schema findings = %+v", s.SchemaFindings)
	}
	if !s.Listing.Complete || len(s.Listing.Tools) != 4 {
		t.Errorf("listing = %+v", s.Listing)
	}
}
