package docsrun

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []Block
	}{
		{"prose blocks are not runnable", "```sh\nrm -rf /\n```\n```console\n$ ls\n```\n```yaml\nrunnable: true\n```\n", nil},
		{"sh", "text\n\n```sh runnable\nmcpsnoop check a.jsonl\necho done\n```\n", []Block{
			{File: "f.md", Line: 3, Lang: "sh", Script: "mcpsnoop check a.jsonl\necho done\n"},
		}},
		{"options", "```sh runnable exit=2 dir=repo\ngo run ./cmd/mcpsnoop check nothing\n```\n", []Block{
			{File: "f.md", Line: 1, Lang: "sh", Script: "go run ./cmd/mcpsnoop check nothing\n", Exit: 2, Dir: "repo"},
		}},
		{"skip with a quoted reason", "```sh runnable skip=\"runs the tests, this one included\"\ngo test ./...\n```\n", []Block{
			{File: "f.md", Line: 1, Lang: "sh", Script: "go test ./...\n", Skip: "runs the tests, this one included"},
		}},
		{"indented in a list item", "1. Record:\n\n   ```sh runnable\n   mcpsnoop check \\\n     a.jsonl\n   ```\n", []Block{
			{File: "f.md", Line: 3, Lang: "sh", Script: "mcpsnoop check \\\n  a.jsonl\n"},
		}},
		{"a fence inside a prose block does not open one", "````md\n```sh runnable\n````\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.md", []byte(tt.md))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ md, want string }{
		{"```sh runnable exit=one\nx\n```\n", "f.md:1: exit=one: want an exit status from 0 to 255"},
		{"```sh runnable exits=1\nx\n```\n", `f.md:1: unknown option "exits"`},
		{"```sh runnable dir=/tmp\nx\n```\n", "f.md:1: dir=/tmp: the only folder"},
		{"```sh runnable skip=\nx\n```\n", "f.md:1: skip= needs a reason"},
		{"```sh runnable skip=\"why\nx\n```\n", "unterminated quote"},
		{"```yaml runnable\nx: 1\n```\n", `f.md:1: runnable block in "yaml"`},
		{"```runnable sh\nx\n```\n", "write runnable second"},
		{"text\n```sh runnable\nx\n", "f.md:2: runnable block has no closing fence"},
		{"```console runnable\nno prompt\n$ ls\n```\n", `f.md:2: a console block starts with a "$ " command line`},
	}
	for _, tt := range tests {
		_, err := Parse("f.md", []byte(tt.md))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.md, err, tt.want)
		}
	}
}

func TestCommands(t *testing.T) {
	blocks, err := Parse("f.md", []byte("# x\n\n```console runnable exit=1\n$ mcpsnoop check \\\n    a.jsonl\nline one\nline two\n$ mcpsnoop check b.jsonl\n$ echo\n\n```\n"))
	if err != nil || len(blocks) != 1 {
		t.Fatalf("%v, %v", blocks, err)
	}
	got, err := blocks[0].Commands()
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Line: 4, Cmd: "mcpsnoop check \\\n    a.jsonl", Stdout: "line one\nline two\n"},
		{Line: 8, Cmd: "mcpsnoop check b.jsonl"},
		{Line: 9, Cmd: "echo", Stdout: "\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
