package secrets

import (
	"os"
	"strings"
	"testing"
)

func TestIsKey(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "Token": true, "api_key": true, "apikey": true, "api-key": true, "API_KEY": true,
		"x-api-key": true, "X-Api-Key": true, "accessToken": true, "access_token": true, "cookie": true,
		"Set-Cookie": true, "set_cookie": true, "password": true, "Authorization": true,
		"progressToken": false, "tokens": false, "max_tokens": false, "cursor": false, "x_api": false, "": false,
	} {
		if got := IsKey(name); got != want {
			t.Errorf("IsKey(%q) = %v, want %v", name, got, want)
		}
	}
}

// Each format finds its credential, and only the secret part of it; text
// that merely looks alike is left alone.
func TestFind(t *testing.T) {
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	tests := []struct{ in, want string }{
		{"use " + gh + " now", "use [X] now"},
		{"github_pat_" + strings.Repeat("A_b1", 10), "[X]"},
		{"glpat-abcdefghij0123456789", "[X]"},
		{"key AKIAIOSFODNN7EXAMPLE in", "key [X] in"},
		{"xoxb-123456789012-abcdefghij", "[X]"},
		{"sk_live_" + strings.Repeat("x", 24), "[X]"},
		{"OPENAI_API_KEY=sk-proj-" + strings.Repeat("Ab9_", 8), "OPENAI_API_KEY=[X]"},
		{"sk-ant-api03-" + strings.Repeat("z", 40), "[X]"},
		{"AIza" + strings.Repeat("B", 35), "[X]"},
		{"hf_" + strings.Repeat("c", 34), "[X]"},
		{"npm_" + strings.Repeat("d", 36), "[X]"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[X]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "[X]"},
		{"Authorization: Bearer abcdefghijklmnop.qrs", "Authorization: Bearer [X]"},
		{"authorization: basic dXNlcjpwYXNzd29yZDEyMw==", "authorization: basic [X]"},
		{"postgres://ada:hunter2@db:5432/x", "postgres://ada:[X]@db:5432/x"},
		// Look-alikes.
		{"ghp_short", ""},
		{"task-1234567890123456789012", ""},
		{"bearer of bad news", ""},
		{"https://example.com/a:b@c", ""},
		{"desk-" + strings.Repeat("a", 30), ""},
	}
	for _, tt := range tests {
		got, changed := Replace(tt.in, "[X]")
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if got != want || changed != (tt.want != "") {
			t.Errorf("Replace(%q) = %q, %v; want %q", tt.in, got, changed, want)
		}
	}
}

// The catalogue is documented: every key and every format is named in
// docs/reference/secrets.md.
func TestCatalogueIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reference/secrets.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("key %q is not in docs/reference/secrets.md", k)
		}
	}
	for _, f := range Formats {
		if !strings.Contains(string(doc), "| "+f.Name+" |") {
			t.Errorf("format %q is not in docs/reference/secrets.md", f.Name)
		}
	}
}
