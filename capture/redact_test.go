package capture

import (
	"strings"
	"testing"
)

func mustRedactor(t *testing.T, o RedactOptions) *Redactor {
	t.Helper()
	r, err := NewRedactor(o)
	if err != nil || r == nil {
		t.Fatalf("NewRedactor(%+v) = %v, %v", o, r, err)
	}
	return r
}

// The worked example of the log format spec (section 10.6): keys, flag
// pairs in arrays, value patterns and a path, with the schema exemption.
// Where mcpsnoop differs from the reference it follows: the catalogue
// names x-api-key (so x_api_key is redacted too), and a message no path
// selected anything in keeps its members in their order (only a path that
// matches has it re-encoded from a tree, keys sorted).
func TestRedactorSpecExample(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true, Values: []string{"sk-[A-Za-z0-9]+"}, Paths: []string{"$.params.arguments.text"}})
	tests := []struct {
		f         Frame
		raw, text string
		redacted  bool
	}{
		{
			Frame{Direction: ClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello","Token":"t0","api_key":"k","x_api_key":"notmatched","password":"pw","nested":{"secret":"s"},"inputSchema":{"token":"t1"},"list":["--api-key=sk-1","--token","abc","plain sk-2"]}}}`)},
			`{"id":2,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"Token":"[REDACTED]","api_key":"[REDACTED]","inputSchema":{"token":"[REDACTED]"},"list":["--api-key=[REDACTED]","--token","[REDACTED]","plain [REDACTED]"],"nested":{"secret":"[REDACTED]"},"password":"[REDACTED]","text":"[REDACTED]","x_api_key":"[REDACTED]"},"name":"echo"}}`,
			"", true,
		},
		{Frame{Direction: Stderr, Text: "stderr has sk-abc secret"}, "", "stderr has [REDACTED] secret", true},
		{
			Frame{Direction: ServerToClient, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"token":{"type":"string","default":"dflt-token","description":"like sk-123"},"password":{"type":"string"}},"required":["token"]}}]}}`)},
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"token":{"type":"string","default":"dflt-token","description":"like [REDACTED]"},"password":{"type":"string"}},"required":["token"]}}]}}`,
			"", true,
		},
		{
			Frame{Direction: Meta, Raw: []byte(`{"command":["python3","srv3.py","--api-key=sk-zzz","--token","abc"],"cwd":"/w"}`)},
			`{"command":["python3","srv3.py","--api-key=[REDACTED]","--token","[REDACTED]"],"cwd":"/w"}`, "", true,
		},
		{Frame{Direction: ClientToServer, Raw: []byte(`{"jsonrpc": "2.0", "id":3,"method":"ping"}`)}, `{"jsonrpc": "2.0", "id":3,"method":"ping"}`, "", false},
	}
	for _, tt := range tests {
		f := tt.f
		changed := r.Apply(&f)
		if changed != tt.redacted || f.Redacted != tt.redacted || string(f.Raw) != tt.raw || f.Text != tt.text {
			t.Errorf("Apply(%s %s%s):\ngot  %v %s %q\nwant %v %s %q", tt.f.Direction, tt.f.Raw, tt.f.Text, changed, f.Raw, f.Text, tt.redacted, tt.raw, tt.text)
		}
	}
}

func TestRedactorPaths(t *testing.T) {
	msg := `{"params":{"items":[{"n":1,"secret":"a"},{"n":2,"secret":"b"},{"n":3,"secret":"c"}],"weird key":"w","deep":{"password":"p"}}}`
	tests := []struct {
		path, want string
	}{
		{"$", `"[REDACTED]"`},
		{"params.deep.password", `{"params":{"deep":{"password":"[REDACTED]"},"items":[{"n":1,"secret":"a"},{"n":2,"secret":"b"},{"n":3,"secret":"c"}],"weird key":"w"}}`},
		{"@.params['weird key']", `{"params":{"deep":{"password":"p"},"items":[{"n":1,"secret":"a"},{"n":2,"secret":"b"},{"n":3,"secret":"c"}],"weird key":"[REDACTED]"}}`},
		{"$..password", `{"params":{"deep":{"password":"[REDACTED]"},"items":[{"n":1,"secret":"a"},{"n":2,"secret":"b"},{"n":3,"secret":"c"}],"weird key":"w"}}`},
		// RFC 9535 slices end before their end index.
		{"$.params.items[0:1].secret", `{"params":{"deep":{"password":"p"},"items":[{"n":1,"secret":"[REDACTED]"},{"n":2,"secret":"b"},{"n":3,"secret":"c"}],"weird key":"w"}}`},
		{"$.params.items[-1]", `{"params":{"deep":{"password":"p"},"items":[{"n":1,"secret":"a"},{"n":2,"secret":"b"},"[REDACTED]"],"weird key":"w"}}`},
		// Numeric filters compare numbers.
		{"$.params.items[?@.n > 1].secret", `{"params":{"deep":{"password":"p"},"items":[{"n":1,"secret":"a"},{"n":2,"secret":"[REDACTED]"},{"n":3,"secret":"[REDACTED]"}],"weird key":"w"}}`},
		{"$.params.nothing", msg},
	}
	for _, tt := range tests {
		r := mustRedactor(t, RedactOptions{Paths: []string{tt.path}})
		f := Frame{Raw: []byte(msg)}
		r.Apply(&f)
		if string(f.Raw) != tt.want || f.Redacted != (tt.want != msg) {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.path, f.Raw, tt.want)
		}
	}
	for _, bad := range []string{"", "$[", "$.[", "$.."} {
		if _, err := NewRedactor(RedactOptions{Paths: []string{bad}}); err == nil || !strings.Contains(err.Error(), "invalid redact JSONPath") {
			t.Errorf("path %q: err %v", bad, err)
		}
	}
}

func TestRedactorKeysAndValues(t *testing.T) {
	if r, err := NewRedactor(RedactOptions{Keys: []string{"", " "}, Values: []string{""}}); r != nil || err != nil {
		t.Errorf("empty rules: %v %v", r, err)
	}
	var none *Redactor
	if none.Apply(&Frame{Text: "x"}) {
		t.Error("a nil redactor changed a frame")
	}
	if _, err := NewRedactor(RedactOptions{Values: []string{"("}}); err == nil || !strings.Contains(err.Error(), "invalid redact pattern") {
		t.Errorf("bad pattern: %v", err)
	}
	r := mustRedactor(t, RedactOptions{Keys: []string{"Region, session-token"}})
	f := Frame{Raw: []byte(`{"region":{"a":[1,2]},"REGION":7,"args":["--session-token","x","--region=eu"],"n":1.50}`)}
	r.Apply(&f)
	if want := `{"region":"[REDACTED]","REGION":"[REDACTED]","args":["--session-token","[REDACTED]","--region=[REDACTED]"],"n":1.50}`; string(f.Raw) != want {
		t.Errorf("got  %s\nwant %s", f.Raw, want)
	}
}

// Over HTTP a redacted argument must not survive in its Mcp-Param-* or
// Mcp-Name mirror, and a header named by a redact key is scrubbed too.
func TestRedactorHeaders(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Keys: []string{"region", "api-key"}, Values: []string{"sk-[0-9]+"}})
	f := Frame{
		Direction: ClientToServer,
		Raw:       []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"region":"eu-west","q":"hello"}}}`),
		McpName:   "lookup",
		McpParamHeaders: []ParamHeader{
			{Name: "Mcp-Param-Where", Value: "=?base64?ZXUtd2VzdA==?="}, // "eu-west"
			{Name: "Mcp-Param-Q", Value: "hello"},
			{Name: "Mcp-Param-Api-Key", Value: "abc"},
			{Name: "Mcp-Param-Token", Value: "key sk-42"},
		},
	}
	r.Apply(&f)
	want := []ParamHeader{
		{Name: "Mcp-Param-Where", Value: RedactedValue, Redacted: true},
		{Name: "Mcp-Param-Q", Value: "hello"},
		{Name: "Mcp-Param-Api-Key", Value: RedactedValue, Redacted: true},
		{Name: "Mcp-Param-Token", Value: "key [REDACTED]", Redacted: true},
	}
	for i, h := range f.McpParamHeaders {
		if h != want[i] {
			t.Errorf("header %d = %+v, want %+v", i, h, want[i])
		}
	}
	if f.McpName != "lookup" || !f.Redacted {
		t.Errorf("name %q redacted %v", f.McpName, f.Redacted)
	}
	named := Frame{Raw: []byte(`{"params":{"name":"secret-tool","arguments":{}}}`), McpName: "secret-tool"}
	mustRedactor(t, RedactOptions{Paths: []string{"$.params.name"}}).Apply(&named)
	if named.McpName != RedactedValue {
		t.Errorf("Mcp-Name mirror kept: %q", named.McpName)
	}
}

func TestRedactorCommand(t *testing.T) {
	r, err := NewRedactor(RedactOptions{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Command([]string{"server", "--api-key=sk-live-123", "--port", "8"})
	if strings.Contains(strings.Join(got, " "), "sk-live-123") || len(got) != 4 || got[0] != "server" {
		t.Errorf("command = %q", got)
	}
	var none *Redactor
	if got := none.Command([]string{"a", "--token=x"}); got[1] != "--token=x" {
		t.Errorf("nil redactor changed %q", got)
	}
}

func TestRedactorShadowedAndTextSecrets(t *testing.T) {
	r, err := NewRedactor(RedactOptions{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    Frame
	}{
		{"a duplicate key shadowing a secret", Frame{Raw: []byte(`{"params":{"arguments":{"password":"hunter2"}},"params":{"arguments":{"x":1}}}`)}},
		{"JSON logged as text for its invalid UTF-8", Frame{Text: "{\"params\":{\"password\":\"hunter2\",\"note\":\"caf\xe9\"}}"}},
		{"a truncated fragment", Frame{Text: `{"params":{"password":"hunter2","rest":"...`, Truncated: true}},
	}
	for _, tt := range tests {
		f := tt.f
		r.Apply(&f)
		if strings.Contains(string(f.Raw)+f.Text, "hunter2") {
			t.Errorf("%s: secret kept: raw %s text %q", tt.name, f.Raw, f.Text)
		}
	}
}

// A path rule reads the message as the decoders do, the last of a repeated
// name winning; the shadowed member it cannot select may hold the secret,
// so a message with a repeated name is logged as decoded, without it.
func TestRedactPathShadowedSecret(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Paths: []string{"$.params.arguments.password"}})
	f := Frame{Raw: []byte(`{"params":{"arguments":{"password":"hunter2"}},"params":{"arguments":{"x":1}}}`)}
	r.Apply(&f)
	if strings.Contains(string(f.Raw)+f.Text, "hunter2") {
		t.Errorf("the shadowed secret was kept: raw %s text %q", f.Raw, f.Text)
	}
	plain := Frame{Raw: []byte(`{"params":{"arguments":{"x":1}},"id":1}`)}
	r.Apply(&plain)
	if string(plain.Raw) != `{"params":{"arguments":{"x":1}},"id":1}` {
		t.Errorf("a message the rule does not reach changed: %s", plain.Raw)
	}
}

// Quote reaches free text the way a text line is reached: key rules on
// quoted "key": value pairs, value patterns anywhere.
func TestRedactorQuote(t *testing.T) {
	r, err := NewRedactor(RedactOptions{Keys: []string{"password"}, Values: []string{`sk-[a-z0-9]+`}})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`login failed for {"user":"bob","password":"hunter2"}`: `login failed for {"user":"bob","password":"[REDACTED]"}`,
		`the key sk-abc123 was refused`:                        `the key [REDACTED] was refused`,
		`nothing to hide`:                                      `nothing to hide`,
	} {
		if got := r.Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Redactor
	if none.Quote("x") != "x" {
		t.Error("a nil redactor changed the text")
	}
}
