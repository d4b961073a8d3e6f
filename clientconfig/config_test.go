package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const bin = "/usr/local/bin/mcpsnoop"

// opts wraps with the plain shim: no flags before "--".
var opts = WrapOptions{Binary: bin}

// Each config names the exact text of the "fs" entry's value, so the test
// can tell that nothing but that value changed.
var wrapCases = []struct {
	name   string
	config string
	entry  string // the value of "fs" as written in config
}{
	{
		name:   "two spaces",
		config: "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"server-fs\", \"/tmp\"]\n    }\n  }\n}\n",
		entry:  "{\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"server-fs\", \"/tmp\"]\n    }",
	},
	{
		name: "tabs, odd spacing, unicode and other servers",
		config: "{\t\"globalShortcut\" :\"Ctrl+Space\" ,\n\t\"mcpServers\" :\n\t{ \"git\":{\"command\":\"uvx\",\"args\":[\"mcp-server-git\"]} ,\n" +
			"\t\t\"fs\"  :  {\n\t\t\t\"env\" : {\"HOME_DIR\": \"/Users/zoë/文档\", \"Q\": \"a \\\"}\\\" b\"},\n\t\t\t\"command\":\"npx\"\n\t\t}\n\t, \"remote\": {\"url\": \"https://example.com/mcp\"}}\n}",
		entry: "{\n\t\t\t\"env\" : {\"HOME_DIR\": \"/Users/zoë/文档\", \"Q\": \"a \\\"}\\\" b\"},\n\t\t\t\"command\":\"npx\"\n\t\t}",
	},
	{
		name:   "one line",
		config: `{"mcpServers":{"fs":{"command":"node","args":["index.js","--root","<dir>&"]},"other":{"command":"x"}}}`,
		entry:  `{"command":"node","args":["index.js","--root","<dir>&"]}`,
	},
	{
		name:   "windows line ends and a byte order mark",
		config: "\xef\xbb\xbf{\r\n    \"mcpServers\": {\r\n        \"fs\": {\r\n            \"command\": \"C:\\\\tools\\\\fs.exe\"\r\n        }\r\n    }\r\n}\r\n",
		entry:  "{\r\n            \"command\": \"C:\\\\tools\\\\fs.exe\"\r\n        }",
	},
	{
		name:   "duplicate key: the last one counts",
		config: `{"mcpServers":{"fs":{"command":"old"}, "fs":{"command":"new","args":[]}}}`,
		entry:  `{"command":"new","args":[]}`,
	},
}

func TestWrapTouchesOnlyTheEntry(t *testing.T) {
	for _, tt := range wrapCases {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(tt.config, tt.entry) != 1 {
				t.Fatalf("entry text occurs %d times in the config", strings.Count(tt.config, tt.entry))
			}
			out, changed, entry, err := Wrap([]byte(tt.config), "fs", opts)
			if err != nil || !changed {
				t.Fatalf("Wrap: changed %v, err %v", changed, err)
			}
			if want := strings.Replace(tt.config, tt.entry, string(entry), 1); string(out) != want {
				t.Errorf("bytes outside the entry changed:\n%s\nwant:\n%s", out, want)
			}
			if !json.Valid(entry) {
				t.Fatalf("entry is not JSON: %s", entry)
			}
			var before, after map[string]any
			json.Unmarshal([]byte(tt.entry), &before)
			json.Unmarshal(entry, &after)
			wantArgs := []any{"--", before["command"]}
			if a, ok := before["args"].([]any); ok {
				wantArgs = append(wantArgs, a...)
			}
			if after["command"] != bin || !reflect.DeepEqual(after["args"], wantArgs) {
				t.Errorf("entry %s: want command %s and args %v", entry, bin, wantArgs)
			}
			for k, v := range before {
				if k != "command" && k != "args" && !reflect.DeepEqual(after[k], v) {
					t.Errorf("key %s: %v, want %v", k, after[k], v)
				}
			}

			again, changed, _, err := Wrap(out, "fs", opts)
			if err != nil || changed || string(again) != string(out) {
				t.Errorf("second Wrap: changed %v, err %v", changed, err)
			}
			back, changed, _, err := Unwrap(out, "fs", nil)
			if err != nil || !changed {
				t.Fatalf("Unwrap: changed %v, err %v", changed, err)
			}
			if !SameConfig(back, []byte(tt.config)) {
				t.Errorf("unwrapped config means something else:\n%s", back)
			}
			if AnyWrapped(back) || !AnyWrapped(out) {
				t.Errorf("AnyWrapped: wrapped %v, unwrapped %v", AnyWrapped(out), AnyWrapped(back))
			}
		})
	}
}

// The rewritten entry follows the file's indentation, keys sorted.
func TestWrapRendering(t *testing.T) {
	config := "{\n\t\"mcpServers\": {\n\t\t\"fs\": {\n\t\t\t\"command\": \"npx\",\n\t\t\t\"env\": {\"K\": \"<v>\"}\n\t\t}\n\t}\n}\n"
	want := "{\n\t\"mcpServers\": {\n\t\t\"fs\": {\n\t\t\t\"args\": [\n\t\t\t\t\"--\",\n\t\t\t\t\"npx\"\n\t\t\t],\n" +
		"\t\t\t\"command\": \"/usr/local/bin/mcpsnoop\",\n\t\t\t\"env\": {\n\t\t\t\t\"K\": \"<v>\"\n\t\t\t}\n\t\t}\n\t}\n}\n"
	out, _, _, err := Wrap([]byte(config), "fs", opts)
	if err != nil || string(out) != want {
		t.Errorf("err %v, got:\n%s\nwant:\n%s", err, out, want)
	}
}

func TestUnwrap(t *testing.T) {
	tests := []struct {
		name, entry, want string
		changed           bool
		err               string
	}{
		{"restores the command line", `{"command":"/opt/mcpsnoop","args":["--","npx","-y","fs"],"env":{"A":"1"}}`, `{"args":["-y","fs"],"command":"npx","env":{"A":"1"}}`, true, ""},
		{"drops shim flags before --", `{"command":"C:\\bin\\MCPSNOOP.EXE","args":["--label","files","--","node","--","x"]}`, `{"args":["--","x"],"command":"node"}`, true, ""},
		{"no args left", `{"command":"mcpsnoop","args":["--","server"]}`, `{"command":"server"}`, true, ""},
		{"not wrapped", `{"command":"npx","args":["--","x"]}`, `{"command":"npx","args":["--","x"]}`, false, ""},
		{"no separator", `{"command":"mcpsnoop","args":["server"]}`, "", false, `server "fs" runs mcpsnoop but its args have no server command after "--"`},
		{"nothing after the separator", `{"command":"mcpsnoop","args":["--"]}`, "", false, `server "fs" runs mcpsnoop but its args have no server command after "--"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, entry, err := Unwrap([]byte(`{"mcpServers":{"fs":`+tt.entry+`}}`), "fs", nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("err %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || changed != tt.changed || string(entry) != tt.want || string(out) != `{"mcpServers":{"fs":`+tt.want+`}}` {
				t.Errorf("changed %v, err %v, entry %s, out %s", changed, err, entry, out)
			}
		})
	}
}

func TestWrapErrors(t *testing.T) {
	tests := []struct {
		name, config, err string
		input             bool // an InputError: the user can fix it on the command line
	}{
		{"unknown server", `{"mcpServers":{"b":{"command":"x"},"a":{"command":"y"}}}`, `no server "fs" under "mcpServers" (servers: a, b)`, true},
		{"unknown server, vscode", `{"servers":{"b":{"command":"x"}}}`, `no server "fs" under "servers" (servers: b)`, true},
		{"no servers key", `{"theme":"dark"}`, `not an MCP client config: it has no "mcpServers" or "servers" object`, false},
		{"no servers", `{"mcpServers":{}}`, `no server "fs": the config lists no servers under "mcpServers" or "servers"`, true},
		{"remote server", `{"mcpServers":{"fs":{"url":"https://example.com/mcp"}}}`, `server "fs" is a remote server (url https://example.com/mcp); only servers started from a command can be wrapped`, true},
		{"typed remote server", `{"servers":{"fs":{"type":"http","url":"http://127.0.0.1:9/mcp"}}}`, `server "fs" is a remote server (url http://127.0.0.1:9/mcp); only servers started from a command can be wrapped`, true},
		// A config comes with a cloned repository: what it says is escaped
		// before it reaches a terminal (ESC, a bidi override).
		{"remote server, hostile url", `{"mcpServers":{"fs":{"url":"https://e.example/\u001b[31mred\u202e"}}}`, `server "fs" is a remote server (url https://e.example/\x1b[31mred\u202e); only servers started from a command can be wrapped`, true},
		{"unknown server, hostile names", `{"mcpServers":{"b\u001b[2J":{"command":"x"}}}`, `no server "fs" under "mcpServers" (servers: b\x1b[2J)`, true},
		{"hostile type", "{\"mcpServers\":{\"fs\":{\"type\":\"http\u202e\",\"command\":\"x\"}}}", `server "fs" is not a stdio server (type "http\u202e"); only servers started from a command can be wrapped`, true},
		{"typed server with a command", `{"mcpServers":{"fs":{"type":"http","command":"x"}}}`, `server "fs" is not a stdio server (type "http"); only servers started from a command can be wrapped`, true},
		{"no command", `{"mcpServers":{"fs":{"args":["x"]}}}`, `server "fs" is not a stdio server (it has no command); only servers started from a command can be wrapped`, true},
		{"not JSON", `{"mcpServers":`, "not valid JSON: unexpected end of JSON input", false},
		{"two commas", `{"mcpServers":{},,}`, "not valid JSON: invalid character '}' looking for beginning of object key string", false},
		{"open comment", "{\"mcpServers\":{} /* x\n}", "not valid JSON: a /* comment at line 1 is never closed", false},
		{"single quotes", `{'mcpServers':{}}`, "not valid JSON: invalid character '\\'' looking for beginning of object key string", false},
		{"not an object", `[]`, "not a JSON object", false},
		{"servers not an object", `{"mcpServers":[]}`, "mcpServers is not a JSON object", false},
		{"vscode servers not an object", `{"servers":"x"}`, "servers is not a JSON object", false},
		{"entry not an object", `{"mcpServers":{"fs":"npx"}}`, `server "fs" is not a JSON object`, false},
		{"command not a string", `{"mcpServers":{"fs":{"command":["npx"]}}}`, `server "fs": command is not a string`, false},
		{"empty command", `{"mcpServers":{"fs":{"command":""}}}`, `server "fs": command is empty`, false},
		{"args not strings", `{"mcpServers":{"fs":{"command":"npx","args":[1]}}}`, `server "fs": args is not a list of strings`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := Wrap([]byte(tt.config), "fs", opts)
			var ie *InputError
			if err == nil || err.Error() != tt.err || errors.As(err, &ie) != tt.input {
				t.Errorf("err %v (input error %v), want %q (input error %v)", err, errors.As(err, &ie), tt.err, tt.input)
			}
			if ie != nil && strings.Contains(tt.name, "remote") && ie.URL == "" {
				t.Errorf("a remote server's error carries no URL")
			}
			_, _, _, err = Unwrap([]byte(tt.config), "fs", nil)
			if tt.input && !strings.Contains(tt.name, "remote") && !strings.Contains(tt.name, "command") && (err == nil || err.Error() != tt.err) {
				t.Errorf("err %v (input error %v), want %q (input error %v)", err, errors.As(err, &ie), tt.err, tt.input)
			}
		})
	}
}

func TestIsWrapped(t *testing.T) {
	for cmd, want := range map[string]bool{
		"mcpsnoop": true, "/usr/local/bin/mcpsnoop": true, `C:\Tools\McpSnoop.exe`: true, "./MCPSNOOP": true,
		"/usr/local/bin/mcpsnoop-shim": true, `C:\Tools\mcpsnoop-shim.exe`: true, "mcpsnoop-shim.exe.bak": false, "mcpsnoop-shim2": false, ".exe": false,
		"mcpsnoop-dev": false, "/opt/mcpsnoop/bin/node": false, "npx": false, "mcpsnoop.exe.bak": false,
	} {
		if IsWrapped(cmd) != want {
			t.Errorf("IsWrapped(%q) = %v", cmd, !want)
		}
	}
}

func TestSameConfig(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"mcpServers":{"a":{"command":"x","args":[]}}}`, "{ \"mcpServers\" : { \"a\" : { \"command\" : \"x\" } } }", true},
		{`{"x":1,"y":2}`, `{"y":2,"x":1}`, true},
		{`{"mcpServers":{"a":{"command":"x","args":null}}}`, `{"mcpServers":{"a":{"command":"x"}}}`, true},
		{`{"x":1}`, `{"x":1.0}`, false},
		{`{"mcpServers":{"a":{"command":"x","args":["y"]}}}`, `{"mcpServers":{"a":{"command":"x"}}}`, false},
		{`{"x":1}`, `not json`, false},
	}
	for _, tt := range tests {
		if got := SameConfig([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("SameConfig(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

// Whatever the file holds, Wrap either refuses or produces valid JSON that
// differs from the input only inside the entry, and Unwrap undoes it.
func FuzzWrap(f *testing.F) {
	for _, c := range wrapCases {
		f.Add(c.config)
	}
	f.Add(`{"mcpServers":{"fs":{"command":"x","args":["a\"}]"]}}}`)
	f.Add(`{"mcpServers":{"fs":{"command":"x","args":null}}}`)
	for _, c := range inPlaceCases {
		f.Add(c.config)
	}
	f.Fuzz(func(t *testing.T, config string) {
		out, changed, entry, err := Wrap([]byte(config), "fs", WrapOptions{Binary: bin, ShimArgs: []string{"--label", "fs"}})
		if err != nil || !changed {
			return
		}
		view, _, verr := jsoncView(bytes.TrimPrefix(out, bom))
		if verr != nil || !json.Valid(view) {
			t.Fatalf("invalid result:\n%s", out)
		}
		if len(out) < len(entry) || !strings.Contains(string(out), string(entry)) {
			t.Fatalf("entry not in result")
		}
		back, changed, _, err := Unwrap(out, "fs", nil)
		if err != nil || !changed || !SameConfig(back, []byte(config)) {
			t.Fatalf("Unwrap: %v, %v:\n%s", changed, err, back)
		}
	})
}

// Entries holding comments are edited in place: the comments stay, and
// unwrapping gives back the very bytes, backup or not.
var inPlaceCases = []struct{ name, config, wrapped string }{
	{
		name:    "args on lines, comments inside",
		config:  "{\"servers\": {\"fs\": {\n  \"command\": \"npx\", // c\n  \"args\": [\n    \"-y\", // why\n    \"pkg\",\n  ],\n}}}",
		wrapped: "{\"servers\": {\"fs\": {\n  \"command\": \"/usr/local/bin/mcpsnoop\", // c\n  \"args\": [\n    \"--label\",\n    \"fs\",\n    \"--\",\n    \"npx\",\n    \"-y\", // why\n    \"pkg\",\n  ],\n}}}",
	},
	{
		name:    "no args, trailing comma",
		config:  "{\"mcpServers\": {\"fs\": {\r\n  \"command\": \"srv\",\r\n}}}",
		wrapped: "{\"mcpServers\": {\"fs\": {\r\n  \"command\": \"/usr/local/bin/mcpsnoop\",\r\n  \"args\": [\"--label\", \"fs\", \"--\", \"srv\"],\r\n}}}",
	},
	{
		name:    "one line, args first",
		config:  `{"servers": {"fs": {"args": ["a","b"], /* x */ "command": "s"}}}`,
		wrapped: `{"servers": {"fs": {"args": ["--label","fs","--","s","a","b"], /* x */ "command": "/usr/local/bin/mcpsnoop"}}}`,
	},
	{
		name:    "empty args with a comment inside",
		config:  `{"servers": {"fs": {"command": "s", "args": [/* none */]}}}`,
		wrapped: `{"servers": {"fs": {"command": "/usr/local/bin/mcpsnoop", "args": ["--label", "fs", "--", "s"/* none */]}}}`,
	},
	{
		name:    "null args",
		config:  `{"servers": {"fs": {"command": "s", "args": null, // n` + "\n}}}",
		wrapped: `{"servers": {"fs": {"command": "/usr/local/bin/mcpsnoop", "args": ["--label", "fs", "--", "s"], // n` + "\n}}}",
	},
}

func TestWrapInPlace(t *testing.T) {
	o := WrapOptions{Binary: bin, ShimArgs: []string{"--label", "fs"}}
	for _, tt := range inPlaceCases {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, _, err := Wrap([]byte(tt.config), "fs", o)
			if err != nil || !changed || string(out) != tt.wrapped {
				t.Fatalf("changed %v, err %v, got:\n%s\nwant:\n%s", changed, err, out, tt.wrapped)
			}
			back, changed, _, err := Unwrap(out, "fs", nil)
			if err != nil || !changed {
				t.Fatalf("Unwrap: changed %v, err %v", changed, err)
			}
			exact := !strings.Contains(tt.name, "null") && !strings.Contains(tt.name, "empty")
			if exact && string(back) != tt.config {
				t.Errorf("unwrapped:\n%s\nwant the original:\n%s", back, tt.config)
			}
			if !SameConfig(back, []byte(tt.config)) {
				t.Errorf("unwrapped config means something else:\n%s", back)
			}
		})
	}
}
