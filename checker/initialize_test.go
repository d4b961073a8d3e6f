package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestInitializeRequiredFields: W57 in the default gate; with validation
// on, the schema finding does not say it again.
func TestInitializeRequiredFields(t *testing.T) {
	wire, _ := checker.ParseFailOn("error,invalid,warn,wire")
	tests := []struct {
		name   string
		params string
		cfg    checker.Config
		want   []string
	}{
		{"complete", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, checker.Config{}, nil},
		{"two missing", `{"capabilities":{},"clientInfo":{"version":"1"}}`, checker.Config{},
			[]string{"warn client initialize is missing required protocolVersion, clientInfo.name"}},
		{"no params", ``, checker.Config{},
			[]string{"warn client initialize is missing required params"}},
		{"with validation: one finding per missing field", `{"protocolVersion":"2025-11-25","clientInfo":{"version":"1"}}`, checker.Config{FailOn: wire},
			[]string{"warn client initialize is missing required capabilities, clientInfo.name"}},
		{"with validation: what W57 does not cover stays", `{"protocolVersion":"2025-11-25","clientInfo":{"name":"c"}}`, checker.Config{FailOn: wire},
			[]string{
				"warn client initialize is missing required capabilities",
				`wire client wire: initialize request: /params/clientInfo: missing property "version" (2025-11-25 InitializeRequest)`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := `{"jsonrpc":"2.0","id":0,"method":"initialize"}`
			if tc.params != "" {
				req = rpcRequest("0", "initialize", tc.params)
			}
			log := partyLog("stdio", c2s(req),
				s2c(rpcResult("0", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)))
			sameLines(t, "findings", partyLines(check(t, tc.cfg, log)), tc.want)
		})
	}
}

// TestVersionHeaderAfterInitialize: W56, the client's MCP-Protocol-Version
// header against the revision initialize negotiated.
func TestVersionHeaderAfterInitialize(t *testing.T) {
	initWith := func(v string) []pf {
		return []pf{
			{"c2s", `"raw":` + rpcRequest("0", "initialize", `{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)},
			{"s2c", `"raw":` + rpcResult("0", `{"protocolVersion":"`+v+`","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)},
		}
	}
	ping := func(header, params string) pf {
		return pf{"c2s", `"raw":` + rpcRequest("1", "ping", params) + `,"mcp_protocol_version":"` + header + `"`}
	}
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"the negotiated revision", append(initWith("2025-11-25"), ping("2025-11-25", `{}`)), nil},
		{"another revision", append(initWith("2025-11-25"), ping("2025-03-26", `{}`)),
			[]string{`warn client MCP-Protocol-Version header "2025-03-26" is not the negotiated revision "2025-11-25"`}},
		{"before 2025-06-18 the header does not exist", append(initWith("2025-03-26"), ping("2025-11-25", `{}`)), nil},
		{"a request declaring 2026-07-28 speaks it", append(initWith("2025-11-25"), ping("2026-07-28", `{`+hxMeta26+`}`)), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range partyLines(check(t, checker.Config{}, partyLog("http", tc.frames...))) {
				if strings.Contains(l, "is not the negotiated revision") {
					got = append(got, l)
				}
			}
			sameLines(t, "warnings", got, tc.want)
		})
	}
}
