package schemacheck

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// The messages that make up most of a capture: a tools/call request, its
// result, a progress notification.
var benchMessages = []wire.Message{
	{Revision: "2025-06-18", Kind: wire.Request, Sender: wire.Client, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":4711,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/main.go","limit":200}}}`)},
	{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Server, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":4711,"result":{"content":[{"type":"text","text":"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"}],"isError":false}}`)},
	{Revision: "2025-06-18", Kind: wire.Notification, Sender: wire.Server, Method: "notifications/progress",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t-9","progress":3,"total":10,"message":"indexing"}}`)},
	{Revision: "2026-07-28", Kind: wire.Request, Sender: wire.Client, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":4711,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/main.go"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)},
	{Revision: "2026-07-28", Kind: wire.Result, Sender: wire.Server, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":4711,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`)},
}

func BenchmarkValidate(b *testing.B) {
	for _, m := range benchMessages {
		if f, err := Validate(m); f != nil || err != nil {
			b.Fatalf("%s %s: %v %v", m.Revision, m.Method, f, err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range benchMessages {
			Validate(m)
		}
	}
}

func BenchmarkValidateEach(b *testing.B) {
	for _, m := range benchMessages {
		b.Run(m.Revision+"/"+m.Method+"/"+[]string{"req", "notif", "result", "err"}[m.Kind], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Validate(m)
			}
		})
	}
}
