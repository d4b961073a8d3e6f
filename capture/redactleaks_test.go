package capture

import (
	"strings"
	"testing"
)

// What --redact-secrets once let through (issue 36): a name written
// escaped or unquoted in almost-JSON, key=value pairs, flags and headers
// in a server's stderr, and names the key list lacked. Each is hidden now;
// MCP's own fields and text that only looks alike are left alone.
func TestRedactSecretsLeaks(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true})
	gh := "ghp_" + strings.Repeat("Z9y8", 9)
	text := []struct{ in, want string }{
		{`{"pass\u0077ord":"x",}`, `{"pass\u0077ord":"[REDACTED]",}`},
		{`{password:"x"}`, `{password:"[REDACTED]"}`},
		{`{password: 'x', user: 'ada'}`, `{password: '[REDACTED]', user: 'ada'}`},
		{`connecting with token=abc123 to host`, `connecting with token=[REDACTED] to host`},
		{`starting server --token s3cr3t --port 8080`, `starting server --token [REDACTED] --port 8080`},
		{`argv: srv --api-key=Y --verbose`, `argv: srv --api-key=[REDACTED] --verbose`},
		{`export API_KEY=abc; export X=1`, `export API_KEY=[REDACTED]; export X=1`},
		{`GET /cb?access_token=abc&state=1`, `GET /cb?access_token=[REDACTED]&state=1`},
		{`> Authorization: Bearer abc.def`, `> Authorization: [REDACTED]`},
		{`< Set-Cookie: sid=1; Path=/; HttpOnly`, `< Set-Cookie: [REDACTED]`},
		{`x-api-key: k-123`, `x-api-key: [REDACTED]`},
		{`config: {"accessToken": "t", "n": 1}`, `config: {"accessToken": "[REDACTED]", "n": 1}`},
		{`found ` + gh + ` in env`, `found [REDACTED] in env`},
		{`secret=`, ``},
		{`progressToken: 7, max_tokens=100, tokens: 5, token count 3`, ``},
		{`see https://example.com/token:x`, ``},
		{`a == b, token == t`, ``},
	}
	for _, tt := range text {
		for _, dir := range []string{Stderr, ServerToClient} {
			f := Frame{Direction: dir, Text: tt.in}
			changed := r.Apply(&f)
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if f.Text != want || changed != (tt.want != "") {
				t.Errorf("%s %q:\ngot  %q (changed %v)\nwant %q", dir, tt.in, f.Text, changed, want)
			}
		}
	}

	raw := []struct{ in, want string }{
		{`{"pass\u0077ord":"x","ok":1}`, `{"pass\u0077ord":"[REDACTED]","ok":1}`},
		{`{"headers":{"api-key":"a","X-Api-Key":"b","cookie":"c","Set-Cookie":"d"},"accessToken":"e"}`,
			`{"headers":{"api-key":"[REDACTED]","X-Api-Key":"[REDACTED]","cookie":"[REDACTED]","Set-Cookie":"[REDACTED]"},"accessToken":"[REDACTED]"}`},
		{`{"token":"a","token":"b"}`, `{"token":"[REDACTED]","token":"[REDACTED]"}`},
		{`{"result":{"content":[{"type":"text","text":"key ` + gh + ` and Bearer abcdefghijklmnopq"}]}}`,
			`{"result":{"content":[{"type":"text","text":"key [REDACTED] and Bearer [REDACTED]"}]}}`},
		{`{"params":{"_meta":{"progressToken":"p1"},"max_tokens":5}}`, ``},
	}
	for _, tt := range raw {
		f := Frame{Direction: ClientToServer, Raw: []byte(tt.in)}
		changed := r.Apply(&f)
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if string(f.Raw) != want || changed != (tt.want != "") {
			t.Errorf("raw %s:\ngot  %s (changed %v)\nwant %s", tt.in, f.Raw, changed, want)
		}
	}
}

// A user's --redact-key is compared as the reference compares it:
// case-insensitively and exactly; only the catalogue's names also match
// across '-' and '_'.
func TestRedactKeyStaysExact(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Keys: []string{"session_key"}})
	f := Frame{Raw: []byte(`{"session_key":"a","Session_Key":"b","sessionKey":"c","session-key":"d"}`)}
	r.Apply(&f)
	if want := `{"session_key":"[REDACTED]","Session_Key":"[REDACTED]","sessionKey":"c","session-key":"d"}`; string(f.Raw) != want {
		t.Errorf("got  %s\nwant %s", f.Raw, want)
	}
}

// A meta frame's command is a command line: a word that holds several
// (sh -c "server --token X") is scanned as text, quotes and all; the
// same string in a message is left to value patterns.
func TestRedactCommandLineWords(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true})
	f := Frame{Direction: Meta, Raw: []byte(`{"command":["sh","-c","exec server --token t-1 --api-key='k-2' API_KEY=k-3"],"cwd":"/w"}`)}
	r.Apply(&f)
	if want := `{"command":["sh","-c","exec server --token [REDACTED] --api-key='[REDACTED]' API_KEY=[REDACTED]"],"cwd":"/w"}`; string(f.Raw) != want {
		t.Errorf("got  %s\nwant %s", f.Raw, want)
	}
	if got := r.Command([]string{"sh", "-c", "srv --token abc"}); got[2] != "srv --token [REDACTED]" {
		t.Errorf("Command: %q", got)
	}
	m := Frame{Direction: ClientToServer, Raw: []byte(`{"params":{"arguments":{"cmd":["run --token t-1"]}}}`)}
	if r.Apply(&m) {
		t.Errorf("a message's string was scanned as a command line: %s", m.Raw)
	}
}

// A quoted value inside a quoted word of a command line (a shell script's
// echo "{password:\"x\"}") is hidden to its matching escaped quote.
func TestRedactEscapedQuotedValue(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true})
	got := r.Command([]string{"sh", "-c", `echo "{password:\"hunter2 x\"}" >&2`})
	if got[2] != `echo "{password:[REDACTED]}" >&2` {
		t.Errorf("got %q", got[2])
	}
}
