package capture

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// The seed README's example file, and the TOML forms read as well.
func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, text string
		want       Config
	}{
		{"seed", `label = "filesystem"
trace-file = "trace.jsonl"
redact-secrets = true
redact-key = "token,authorization"
redact-value = "sk-[A-Za-z0-9]+"
redact-path = "$.params.arguments.password"
no-trace = false
`, Config{Label: ptr("filesystem"), TraceFile: ptr("trace.jsonl"), RedactSecrets: ptr(true), NoTrace: ptr(false),
			RedactKeys: []string{"token,authorization"}, RedactValues: []string{"sk-[A-Za-z0-9]+"}, RedactPaths: []string{"$.params.arguments.password"}}},
		{"repeated lines accumulate", "redact-key = \"a\"\nredact-key = b\r\n# comment\n\n  redact-value = \"x\\d+\"\nredact-value = 'y\\s'\n",
			Config{RedactKeys: []string{"a", "b"}, RedactValues: []string{`x\d+`, `y\s`}}},
		{"arrays", "redact-key = [\"a\", 'b',]\nredact-path = [\n  \"$.x\", # the x\n  \"$.y\"\n]\nredact-key = \"c\"  # trailing comment\n",
			Config{RedactKeys: []string{"a", "b", "c"}, RedactPaths: []string{"$.x", "$.y"}}},
		{"bare values and bools", "label = my server # named\nno-trace = T\nredact-secrets = 0\n",
			Config{Label: ptr("my server"), NoTrace: ptr(true), RedactSecrets: ptr(false)}},
		{"quoted key", "\"label\" = 'x'", Config{Label: ptr("x")}},
		{"log folder and size bound", "log-dir = \"artifacts/mcp\"\nmax-log-size = 512MiB\n", Config{LogDir: ptr("artifacts/mcp"), MaxLogSize: ptr(int64(512 << 20))}},
		{"no size bound", "max-log-size = '0'", Config{MaxLogSize: ptr(int64(0))}},
		{"collector", "otlp-endpoint = \"http://localhost:4318/v1/traces\"\notlp-header = [\"x-tenant=a\", 'authorization=Bearer t']\notlp-header = \"x-b=c\"\n",
			Config{OTLPEndpoint: ptr("http://localhost:4318/v1/traces"), OTLPHeaders: []string{"x-tenant=a", "authorization=Bearer t", "x-b=c"}}},
	}
	for _, tt := range tests {
		got, err := ParseConfig(".mcpsnoop.toml", []byte(tt.text))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tt.name, *got, tt.want)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"label = \"a\"\ncolour = \"red\"", `.mcpsnoop.toml: line 2: unknown key "colour"`},
		{"\n\njust words", `.mcpsnoop.toml: line 3: expected key = value, got "just words"`},
		{"[shim]\nlabel = x", `line 1: tables are not supported`},
		{"label = a\nlabel = b", `line 2: label is already set on line 1`},
		{"no-trace = maybe", `line 1: no-trace must be true or false, got "maybe"`},
		{"max-log-size = lots", `line 1: max-log-size: invalid size "lots"`},
		{"log-dir = ''", `line 1: log-dir is empty`},
		{"redact-value = \"(\"", `line 1: invalid redact pattern "("`},
		{"redact-path = \"$[\"", `line 1: invalid redact JSONPath "$["`},
		{"label = [\"a\"]", `line 1: label takes one value, not an array`},
		{"redact-key = [\"a\",\n\"b\"\n", `line 1: redact-key: the array is never closed`},
		{"redact-key = [a]", `line 1: redact-key: array elements must be quoted strings`},
		{"label = a#b", `line 1: label: "a#b" has a # inside; quote the value`},
		{"label = \"a\" b", `line 1: label: unexpected "b" after the value`},
		{"label = \"a", `line 1: label: "a has no closing "`},
		{"label =", `line 1: label: missing value`},
		{"otlp-endpoint = ''", `line 1: otlp-endpoint is empty`},
		{"otlp-header = \"authorization Bearer sk-1\"", `line 1: otlp-header must be NAME=VALUE`},
	}
	for _, tt := range tests {
		_, err := ParseConfig(".mcpsnoop.toml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.text, err, tt.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if c, err := LoadConfig(filepath.Join(dir, ConfigFile)); c != nil || err != nil {
		t.Fatalf("missing file: %v %v", c, err)
	}
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte("label = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(path); err != nil || *c.Label != "x" {
		t.Fatalf("%+v %v", c, err)
	}
}
