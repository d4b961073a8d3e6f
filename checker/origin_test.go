package checker_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestOriginRule: W50, a server on the loopback answering anything but 403
// to a request whose Host and Origin both name another site.
func TestOriginRule(t *testing.T) {
	target := func(host string) pf {
		return pf{"meta", `"raw":{"target":{"scheme":"http","host":"` + host + `","port":8080}}`}
	}
	from := func(host, origin string) pf {
		return pf{"c2s", `"raw":` + toolCall("1", "echo", "") + `,"host":"` + host + `","origin":"` + origin + `","http_method":"POST"`}
	}
	ok := pf{"s2c", `"status":200,"raw":` + rpcResult("1", `{"content":[]}`)}
	w50 := "warn server a server on the loopback answered with HTTP 200 a request whose Host and Origin name another site, which it must refuse (403) against DNS rebinding"
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"a rebound page's request answered", []pf{target("127.0.0.1"), from("evil.example:8080", "http://evil.example"), ok}, []string{w50}},
		{"an IPv6 loopback target", []pf{target("::1"), from("evil.example", "https://evil.example"), ok}, []string{w50}},
		{"refused with 403", []pf{target("localhost"), from("evil.example:8080", "http://evil.example"), {"s2c", `"status":403,"reply_to":1`}}, nil},
		{"refused with 403: no error either", []pf{target("localhost"), from("localhost:8080", "http://evil.example"), {"s2c", `"status":403,"reply_to":1`}}, nil},
		{"a target off the loopback", []pf{target("api.example"), from("evil.example:8080", "http://evil.example"), ok}, nil},
		{"a loopback Host", []pf{target("127.0.0.1"), from("127.0.0.1:8080", "http://evil.example"), ok}, nil},
		{"a loopback Origin", []pf{target("127.0.0.1"), from("evil.example:8080", "http://localhost:3000"), ok}, nil},
		{"no target recorded (an older log)", []pf{from("evil.example:8080", "http://evil.example"), ok}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range partyLines(check(t, checker.Config{}, partyLog("http", tc.frames...))) {
				if l[:4] == "warn" || l[:5] == "error" {
					got = append(got, l)
				}
			}
			sameLines(t, "warnings", got, tc.want)
		})
	}
}
