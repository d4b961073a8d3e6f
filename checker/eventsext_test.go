package checker_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestEventsExtensionCalls: events/* pair and time like other requests;
// an open events/stream is never pending; W61 when the server's
// capabilities left the extension out.
func TestEventsExtensionCalls(t *testing.T) {
	gates, _ := checker.ParseFailOn("error,invalid,warn,pending")
	discover := func(ext string) []pf {
		caps := `{}`
		if ext != "" {
			caps = `{"extensions":{"` + ext + `":{}}}`
		}
		return []pf{
			c2s(rpcRequest("0", "server/discover", `{`+hxMeta26+`}`)),
			s2c(rpcResult("0", `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+caps+`,"cacheScope":"public","ttlMs":0}`)),
		}
	}
	use := []pf{
		c2s(rpcRequest("1", "events/poll", `{"name":"incident.created","cursor":null,`+hxMeta26+`}`)),
		s2c(rpcResult("1", `{"resultType":"complete","events":[],"cursor":"c1"}`)),
		c2s(rpcRequest("2", "events/stream", `{"name":"incident.created","cursor":"c1",`+hxMeta26+`}`)),
		s2c(`{"jsonrpc":"2.0","method":"notifications/events/active","params":{"cursor":"c1","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`),
	}
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"advertised: clean, the open stream is not pending", append(discover("io.modelcontextprotocol/events"), use...), nil},
		{"not advertised", append(discover(""), use...), []string{
			"warn client events/poll uses the io.modelcontextprotocol/events extension, which the server never advertised",
			"warn client events/stream uses the io.modelcontextprotocol/events extension, which the server never advertised",
		}},
		{"the server's capabilities never seen: not judged", use, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, checker.Config{FailOn: gates}, partyLog("stdio", tc.frames...))
			sameLines(t, "findings", partyLines(rep), tc.want)
			if s := rep.Sessions[0]; s.Counters.Pending != 0 {
				t.Errorf("pending = %d: an open events/stream is not a call waiting", s.Counters.Pending)
			}
		})
	}
}
