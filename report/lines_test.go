package report

import (
	"reflect"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestInteractionLines(t *testing.T) {
	it := checker.Interaction{
		RootID: "1", Method: "tools/call", Name: "book_flight", RoundTrips: 3, Outcome: "pending",
		DurationMs: 38200, ServerTimeMs: 1200, ClientTurnaroundMs: 37000, HopsTruncated: true,
		Hops: []checker.Hop{
			{RequestID: "1", ResponseTS: "t", ServerTimeMs: 400, Asked: []string{"elicitation/create", "roots/list"}},
			{RequestID: "2", ClientTurnaroundMs: 12000},
		},
	}
	want := []string{
		"tools/call book_flight (id 1): 3 round trips, 38.2s wall clock = 1.2s server + 37s client, pending",
		"hop 1 (id 1): server 400ms, asked elicitation/create, roots/list",
		"hop 2 (id 2): client 12s, no answer",
		"(hops past the first 2 not listed)",
	}
	if got := InteractionLines(it); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestElicitationLines(t *testing.T) {
	elapsed := 2800.0
	for _, tt := range []struct {
		e    checker.Elicitation
		want []string
	}{
		{checker.Elicitation{
			RootID: "5", Method: "tools/call", Name: "login", Mode: "form", Key: "creds", Action: "decline",
			ElapsedMs: &elapsed, Message: "Enter \"it\"", MessageTruncated: true,
			Fields: []checker.ElicitField{{Name: "password", Type: "string"}}, FieldsTruncated: true,
		}, []string{
			`tools/call login [form] creds: decline after 2.8s`,
			`"Enter \"it\"" (truncated)`,
			"password string",
			"(more fields not listed)",
		}},
		{checker.Elicitation{RootID: "3", Method: "prompts/get", Mode: "url", URL: "https://a.example/x", Host: "a.example", Pending: true},
			[]string{"prompts/get [url] (id 3): pending", "url https://a.example/x (host a.example)"}},
		{checker.Elicitation{RootID: "4", Method: "tools/call", Mode: "form"},
			[]string{"tools/call [form] (id 4): answered"}},
		// 2025-11-25: the server's request, asked during tools/call book
		{checker.Elicitation{RootID: "7", Method: "tools/call", Name: "book", RequestID: "0", Mode: "form", Action: "accept"},
			[]string{"tools/call book [form] elicitation/create (id 0): accept"}},
	} {
		if got := ElicitationLines(tt.e); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}
