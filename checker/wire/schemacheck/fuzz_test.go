package schemacheck

import (
	"encoding/json"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// FuzzValidate feeds any JSON object as each kind of message under each
// revision: nothing may panic, and a finding always has an issue.
func FuzzValidate(f *testing.F) {
	for _, m := range benchMessages {
		f.Add(m.Raw, m.Method)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\u0000\"b"},{}],"structuredContent":{"x":[]}}}`), "tools/call")
	f.Add([]byte(`{"jsonrpc":"2.0","id":"[REDACTED]","method":"x","params":{"_meta":"[REDACTED]"}}`), "x")
	f.Fuzz(func(t *testing.T, raw []byte, method string) {
		if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
			return
		}
		for _, rev := range wire.Revisions {
			for _, kind := range []wire.Kind{wire.Request, wire.Notification, wire.Result, wire.Error} {
				for _, sender := range []wire.Sender{wire.Client, wire.Server} {
					f, err := Validate(wire.Message{Revision: rev, Kind: kind, Sender: sender, Method: method, Raw: raw, Redacted: true, TaskAugmented: kind == wire.Result})
					if err != nil {
						t.Fatal(err)
					}
					if f != nil && (len(f.Issues) == 0 || f.Text() == "" || f.Kind() == "") {
						t.Fatalf("empty finding %+v", f)
					}
					// The shape cache answers as a full validation would.
					m := wire.Message{Revision: rev, Kind: kind, Sender: sender, Method: method, Raw: raw, TaskAugmented: kind == wire.Result}
					for range 2 { // the second time the shape is known
						cached, _ := Validate(m)
						if text(cached) != uncached(t, m) {
							t.Fatalf("%s: cached %q, validated %q", rev, text(cached), uncached(t, m))
						}
					}
				}
			}
		}
	})
}

func text(f *wire.Finding) string {
	if f == nil {
		return ""
	}
	return f.Text()
}
