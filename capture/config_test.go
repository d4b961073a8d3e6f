package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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

// longArray is a config whose one array spans n lines.
func longArray(n int) []byte {
	var b strings.Builder
	b.WriteString("redact-key = [\n")
	for i := range n {
		fmt.Fprintf(&b, "  \"key%d\",\n", i)
	}
	b.WriteString("]\n")
	return []byte(b.String())
}

// A config is read in time and memory that grow with its size, not its
// square: an array over thousands of lines is scanned once, not again
// from its start for each line (a 40,000-line array took minutes). Bytes
// allocated are counted, not seconds, so a busy machine does not matter:
// parsing allocates a small multiple of the input, and twice the input
// allocates about twice as much.
func TestParseConfigIsLinear(t *testing.T) {
	allocated := func(data []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := ParseConfig(ConfigFile, data)
		runtime.ReadMemStats(&after)
		if err != nil || len(c.RedactKeys) == 0 {
			t.Fatalf("%v", err)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := longArray(4000), longArray(8000)
	a, b := allocated(small), allocated(large)
	if per := a / uint64(len(small)); per > 32 {
		t.Errorf("parsing %d bytes allocated %d bytes, %d per byte of input", len(small), a, per)
	}
	if b > 3*a {
		t.Errorf("twice the input allocated %.1f times as much (%d, then %d bytes)", float64(b)/float64(a), a, b)
	}
	c, err := ParseConfig(ConfigFile, append(longArray(3), "label = \"after\"\n"...))
	if err != nil || len(c.RedactKeys) != 3 || *c.Label != "after" {
		t.Errorf("the line after an array: %+v %v", c, err)
	}
	_, err = ParseConfig(ConfigFile, []byte("label = x\nredact-key = [\n\"a\",\n\"b\"\n] oops\n"))
	if err == nil || !strings.Contains(err.Error(), `line 2: redact-key: unexpected "oops" after the value`) {
		t.Errorf("text after a closing bracket: %v", err)
	}
	_, err = ParseConfig(ConfigFile, []byte("redact-key = [\n\"a\",\n\"b\"\n]\nlabel = x\nlabel = y\n"))
	if err == nil || !strings.Contains(err.Error(), "line 6: label is already set on line 5") {
		t.Errorf("line numbers after an array: %v", err)
	}
}

// The 40,000-line array that took minutes to parse.
func BenchmarkParseConfigLongArray(b *testing.B) {
	data := longArray(40000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseConfig(ConfigFile, data); err != nil {
			b.Fatal(err)
		}
	}
}

// A config larger than MaxConfigSize is refused before it is parsed.
func TestLoadConfigTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), ConfigFile)
	big := strings.Repeat("# padding\n", MaxConfigSize/10+1)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "larger than 1MiB") {
		t.Errorf("err %v", err)
	}
	if err := os.WriteFile(path, []byte(big[:MaxConfigSize]), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err != nil {
		t.Errorf("a config of exactly the bound: %v", err)
	}
}
