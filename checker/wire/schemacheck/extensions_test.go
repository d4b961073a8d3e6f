package schemacheck

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// TestEventsExtension: the Events extension's messages are held to its
// schema (mcpsnoop's reading of SEP-3415) beside the envelope.
func TestEventsExtension(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	request := func(method string) wire.Message {
		return wire.Message{Kind: wire.Request, Sender: wire.Client, Method: method}
	}
	result := func(method string) wire.Message {
		return wire.Message{Kind: wire.Result, Sender: wire.Server, Method: method}
	}
	notification := func(method string) wire.Message {
		return wire.Message{Kind: wire.Notification, Sender: wire.Server, Method: method}
	}
	tests := []struct {
		name string
		msg  wire.Message
		raw  string
		want string // Finding.Text(), "" for none
	}{
		{"a poll", request("events/poll"),
			`{"jsonrpc":"2.0","id":1,"method":"events/poll","params":{"name":"incident.created","arguments":{},"cursor":null,"maxEvents":50,` + meta + `}}`, ""},
		{"a poll without the event's name", request("events/poll"),
			`{"jsonrpc":"2.0","id":1,"method":"events/poll","params":{"cursor":"c1",` + meta + `}}`,
			`wire: events/poll request: /params: missing property "name" (2026-07-28 events.PollRequest)`},
		{"a poll's events", result("events/poll"),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","events":[{"eventId":"e1","name":"incident.created","timestamp":"2026-12-06T10:00:00Z","data":{"id":7},"cursor":"c2"}],"cursor":"c2","truncated":false}}`, ""},
		{"an occurrence without its id", result("events/poll"),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","events":[{"name":"incident.created","timestamp":"2026-12-06T10:00:00Z","data":{}}],"cursor":7}}`,
			`wire: events/poll result: /cursor: is number, want null or string; /events/0: missing property "eventId" (2026-07-28 events.PollResult)`},
		{"a catalog", result("events/list"),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","events":[{"name":"incident.created","inputSchema":{"type":"object"}},{"description":"nameless"}]}}`,
			`wire: events/list result: /events/1: missing property "name" (2026-07-28 events.ListResult)`},
		{"a heartbeat carries its cursor", notification("notifications/events/heartbeat"),
			`{"jsonrpc":"2.0","method":"notifications/events/heartbeat","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`,
			`wire: notifications/events/heartbeat notification: /params: missing property "cursor" (2026-07-28 events.HeartbeatNotification)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.msg.Revision, tc.msg.Raw = "2026-07-28", []byte(tc.raw)
			f, err := Validate(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if f != nil {
				got = f.Text()
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if f != nil && !strings.HasPrefix(wire.SpecURL(f.Revision, f.Definition), "https://modelcontextprotocol.io/extensions/events/") {
				t.Errorf("spec link %s, want the extension's page", wire.SpecURL(f.Revision, f.Definition))
			}
		})
	}
}
