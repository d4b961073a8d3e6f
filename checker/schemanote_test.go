package checker_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestDialectNoteFolds: every tool of an SDK that writes draft-07 schemas
// gets nonDefaultDialect; the session says so in one note naming each
// dialect and its tools, while the counter still counts the tools.
func TestDialectNoteFolds(t *testing.T) {
	tool := func(name, dialect string) string {
		return `{"name":"` + name + `","inputSchema":{"$schema":"` + dialect + `","type":"object"}}`
	}
	list := `{"tools":[` + tool("echo", "http://json-schema.org/draft-07/schema#") + `,` +
		tool("add", "https://json-schema.org/draft/2019-09/schema") + `,` +
		tool("plain", "https://json-schema.org/draft/2020-12/schema#") + `,` +
		tool("big", "http://json-schema.org/draft-07/schema#") + `]}`
	log := logOf("s", "1 c2s 0 "+rpcRequest("1", "tools/list", `{}`), "2 s2c 1 "+rpcResult("1", list))
	rep := check(t, checker.Config{FailOn: []checker.Signal{checker.SignalSchema}}, log)
	sameLines(t, "findings", messages(rep), []string{
		`error mcpsnoop/schema session s: tool schemas name a JSON Schema dialect other than 2020-12, which MCP assumes: ` +
			`dialect "http://json-schema.org/draft-07/schema#" in 2 tools: "echo", "big"; dialect "https://json-schema.org/draft/2019-09/schema" in 1 tool: "add"`,
	})
	if n := rep.Sessions[0].Counters.SchemaFindings; n != 3 {
		t.Errorf("schema_findings = %d, want 3 (one per tool)", n)
	}
	if f := rep.Findings[0]; f.Line != 2 || f.Party != checker.PartyServer {
		t.Errorf("the note is at line %d blaming %s, want the tools/list answer's line 2 and the server", f.Line, f.Party)
	}
}
