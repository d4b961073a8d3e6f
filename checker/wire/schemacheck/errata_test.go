package schemacheck

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// TestErrataApply: every erratum finds the node it corrects in each
// revision it names (an upstream schema that moved would leave it
// uncorrected), and loading a revision applies them.
func TestErrataApply(t *testing.T) {
	for _, e := range errata {
		for _, rev := range e.revisions {
			r := revisions[rev]
			if r == nil {
				t.Fatalf("erratum of %s names unknown revision %s", e.definition, rev)
			}
			if err := r.load(); err != nil {
				t.Fatalf("%s: %v", rev, err)
			}
		}
	}
}

// TestElicitAnswersTakeNumbers: schema.ts lets a form answer be any
// number; schema.json said integer. A fractional answer validates, a
// nested object is still refused.
func TestElicitAnswersTakeNumbers(t *testing.T) {
	answer := `{"action":"accept","content":{"age":95.5,"name":"x","ok":true}}`
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	messages := []wire.Message{
		{Revision: "2025-06-18", Kind: wire.Result, Sender: wire.Client, Method: "elicitation/create", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":` + answer + `}`)},
		{Revision: "2025-11-25", Kind: wire.Result, Sender: wire.Client, Method: "elicitation/create", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":` + answer + `}`)},
		// 2026-07-28 has no server requests: the answer rides the retry.
		{Revision: "2026-07-28", Kind: wire.Request, Sender: wire.Client, Method: "tools/call",
			Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"inputResponses":{"k":` + answer + `},` + meta + `}}`)},
	}
	for _, m := range messages {
		if f, err := Validate(m); err != nil || f != nil {
			t.Errorf("%s: a fractional answer: %v, %v", m.Revision, f, err)
		}
		m.Raw = []byte(strings.Replace(string(m.Raw), "95.5", `{"x":1}`, 1))
		if f, err := Validate(m); err != nil || f == nil {
			t.Errorf("%s: a nested object answer validated (%v)", m.Revision, err)
		}
	}
}
