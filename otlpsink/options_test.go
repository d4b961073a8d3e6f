package otlpsink

import (
	"strings"
	"testing"
)

// TestParseHeaders: NAME=VALUE with a token name and a value any header
// may carry (tabs and non-ASCII text included) is taken, trimmed; anything
// else is refused, naming the header by position or name and never
// showing its value.
func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders([]string{"Authorization= Bearer tok ", "X-Scope-OrgID=tenant\t1", "X-Note=café", "X-Empty="})
	if err != nil {
		t.Fatal(err)
	}
	if h.Get("Authorization") != "Bearer tok" || h.Get("X-Scope-Orgid") != "tenant\t1" || h.Get("X-Note") != "café" || len(h.Values("X-Empty")) != 1 {
		t.Errorf("headers %v", h)
	}
	for _, tc := range []struct{ kv, want string }{
		{"no-equals-s3cret", "#1 has no '='"},
		{"=s3cret", "#1 has an empty name"},
		{"Bad Name=s3cret", `#1: "Bad Name" is not a valid header name`},
		{"X-A=s3cret\r\nX-Injected: 1", "X-A: the value holds a control character"},
		{"X-A=s3cret\x00", "X-A: the value holds a control character"},
		{"X-A=s3cret\x1b[31m", "X-A: the value holds a control character"},
		{"X-A=s3cret\x7f", "X-A: the value holds a control character"},
		{"X-A=s3cret\x01", "X-A: the value holds a control character"},
	} {
		_, err := ParseHeaders([]string{tc.kv})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v; want an error with %q and without the value", tc.kv, err, tc.want)
		}
	}
}
