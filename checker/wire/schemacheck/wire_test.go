package schemacheck

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// The embedded schemas are the specification's files, unchanged: their
// digests are those schemas/README.md records.
func TestSchemaFilesUnchanged(t *testing.T) {
	readme, err := os.ReadFile("schemas/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| (\\S+\\.json) \\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(string(readme), -1)
	if len(rows) != len(wire.Revisions) {
		t.Fatalf("README lists %d digests, want %d", len(rows), len(wire.Revisions))
	}
	for _, row := range rows {
		data, err := schemaFS.ReadFile("schemas/" + row[1])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != row[2] {
			t.Errorf("%s: sha256 %s, README says %s", row[1], got, row[2])
		}
	}
}

// Every definition of every revision compiles, and each revision knows who
// sends its methods.
func TestEveryDefinitionCompiles(t *testing.T) {
	for _, rev := range wire.Revisions {
		r := revisions[rev]
		if err := r.load(); err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(r.defs))
		for n := range r.defs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if _, err := r.schema(n); err != nil {
				t.Errorf("%s: %v", rev, err)
			}
		}
		if r.clientRequests["tools/call"] != "CallToolRequest" || r.resultOf["CallToolRequest"] != "CallToolResult" ||
			r.clientNotifications["notifications/cancelled"] != "CancelledNotification" {
			t.Errorf("%s tables: %v %v %v", rev, r.clientRequests, r.resultOf, r.clientNotifications)
		}
	}
	if r := revisions["2026-07-28"]; len(r.serverRequests) != 0 || !r.inputRequired["tools/call"] || r.inputRequired["tools/list"] {
		t.Errorf("2026-07-28: server requests %v, input required %v", r.serverRequests, r.inputRequired)
	}
	if r := revisions["2024-11-05"]; r.resultOf["PingRequest"] != "EmptyResult" || r.serverRequests["roots/list"] != "ListRootsRequest" {
		t.Errorf("2024-11-05: %v %v", r.resultOf, r.serverRequests)
	}
}

// What the decoder leaves out of a string (all past longString bytes, the
// escapes of a long one) and what a shape leaves out (the strings no const
// or enum can match) can change no verdict: no schema constrains a
// string's content otherwise, and every const and enum is a short scalar.
func TestSchemasConstrainNoStringContent(t *testing.T) {
	for _, rev := range wire.Revisions {
		r := revisions[rev]
		if err := r.load(); err != nil {
			t.Fatal(err)
		}
		for name, def := range r.defs {
			walkSchema(t, rev+" "+name, def)
		}
	}
}

// walkSchema visits every schema under s (as a schema, not as data).
func walkSchema(t *testing.T, at string, s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		switch k {
		case "pattern", "minLength", "maxLength", "contentEncoding", "contentMediaType", "contentSchema", "patternProperties", "propertyNames", "uniqueItems":
			t.Errorf("%s: uses %s", at, k)
		case "const":
			checkConstant(t, at, v)
		case "enum":
			for _, e := range v.([]any) {
				checkConstant(t, at, e)
			}
		case "properties", "$defs", "definitions", "dependentSchemas":
			for name, sub := range v.(map[string]any) {
				walkSchema(t, at+"/"+name, sub)
			}
		case "anyOf", "allOf", "oneOf", "prefixItems":
			for _, sub := range v.([]any) {
				walkSchema(t, at+"/"+k, sub)
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains", "unevaluatedProperties", "unevaluatedItems":
			walkSchema(t, at+"/"+k, v)
		}
	}
}

// checkConstant: a const or enum value is a scalar (the shape of a
// message keeps the strings a scalar constant can match, and would not
// see inside an object constant), and no string one is long.
func checkConstant(t *testing.T, at string, v any) {
	switch c := v.(type) {
	case map[string]any, []any:
		t.Errorf("%s: a constant that is not a scalar: %v", at, c)
	case string:
		if len(c) > longString {
			t.Errorf("%s: a constant of %d bytes", at, len(c))
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		msg  wire.Message
		want string // Finding.Text(), "" for none
	}{
		{"a conforming 2024-11-05 result",
			wire.Message{Revision: "2024-11-05", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`)},
			""},
		{"the result of the request it answers",
			wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}},{"inputSchema":{"type":"object"}}]}}`)},
			`wire: tools/list result: /tools/3: missing property "name" (2025-11-25 ListToolsResult)`},
		{"the envelope too, where the definition lacks it",
			wire.Message{Revision: "2025-03-26", Kind: wire.Request, Sender: wire.Client, Method: "tools/call", Raw: []byte(`{"jsonrpc":"1.0","id":null,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":true}}}`)},
			`wire: tools/call request: /id: is null, want integer or string; /jsonrpc: is "1.0", want "2.0"; /params/_meta/progressToken: is boolean, want integer or string (2025-03-26 JSONRPCRequest)`},
		{"tools/call arguments are an object, whatever they hold",
			wire.Message{Revision: "2025-06-18", Kind: wire.Request, Sender: wire.Client, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}],"c":"` + strings.Repeat("x", 1000) + `"}}}`)},
			""},
		{"structuredContent must be an object in 2025-06-18",
			wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1,2]}}`)},
			`wire: tools/call result: /structuredContent: is array, want object (2025-06-18 CallToolResult)`},
		{"and anything in 2026-07-28",
			wire.Message{Revision: "2026-07-28", Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":[1,2]}}`)},
			""},
		{"a long string keeps its type",
			wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`a\"b`, 300) + `"},{"type":"text","text":` + strings.Repeat("1", 300) + `}]}}`)},
			`wire: tools/call result: /content/1/text: is number, want string (2025-11-25 CallToolResult)`},
		{"an input_required result where the method allows one",
			wire.Message{Revision: "2026-07-28", Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}`)},
			""},
		{"and where it does not",
			wire.Message{Revision: "2026-07-28", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`)},
			`wire: tools/list result: missing properties "cacheScope", "tools", "ttlMs" (2026-07-28 ListToolsResult)`},
		{"an extension's result type is a generic result",
			wire.Message{Revision: "2026-07-28", Kind: wire.Result, Sender: wire.Server, Method: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t"}}`)},
			""},
		{"an unknown method: its envelope only",
			wire.Message{Revision: "2025-11-25", Kind: wire.Request, Sender: wire.Client, Method: "vendor/thing", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"vendor/thing","params":[1]}`)},
			`wire: vendor/thing request: /params: is array, want object (2025-11-25 JSONRPCRequest)`},
		{"a response that answers nothing known",
			wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Raw: []byte(`{"jsonrpc":"2.0","id":1}`)},
			`wire: result: missing property "result" (2025-11-25 JSONRPCResultResponse)`},
		{"a notification's params",
			wire.Message{Revision: "2026-07-28", Kind: wire.Notification, Sender: wire.Server, Method: "notifications/progress", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"half"}}`)},
			`wire: notifications/progress notification: /params/progress: is string, want number (2026-07-28 ProgressNotification)`},
		{"numbers in range",
			wire.Message{Revision: "2025-06-18", Kind: wire.Request, Sender: wire.Server, Method: "sampling/createMessage", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10,"modelPreferences":{"speedPriority":1.5}}}`)},
			`wire: sampling/createMessage request: /params/modelPreferences/speedPriority: is 1.5, want at most 1 (2025-06-18 CreateMessageRequest)`},
		{"a redacted value is not judged",
			wire.Message{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "initialize", Redacted: true, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":"[REDACTED]","serverInfo":{"name":"s","version":"1"}}}`)},
			""},
		{"more problems than a finding lists",
			wire.Message{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Server, Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{},{},{},{},{}]}}`)},
			`wire: tools/list result: /tools/0: missing properties "inputSchema", "name"; /tools/1: missing properties "inputSchema", "name"; /tools/2: missing properties "inputSchema", "name"; and 2 more (2025-11-25 ListToolsResult)`},
	}
	for _, tt := range tests {
		f, err := Validate(tt.msg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := ""
		if f != nil {
			got = f.Text()
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if _, err := Validate(wire.Message{Revision: "2024-10-07", Raw: []byte(`{}`)}); !errors.Is(err, wire.ErrUnknownRevision) {
		t.Errorf("unknown revision: %v", err)
	}
}
