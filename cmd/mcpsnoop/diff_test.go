package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// diffRun runs `mcpsnoop diff args...` in-process.
func diffRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"diff"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// fixtureVariant writes a copy of fixtures/<name> into dir with each
// old -> new replacement applied once, and returns its path.
func fixtureVariant(t *testing.T, dir, name, as string, replace ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(replace); i += 2 {
		if strings.Count(s, replace[i]) != 1 {
			t.Fatalf("%s: %q occurs %d times, want once", name, replace[i], strings.Count(s, replace[i]))
		}
		s = strings.Replace(s, replace[i], replace[i+1], 1)
	}
	p := filepath.Join(dir, as)
	writeFile(t, p, []byte(s))
	return p
}

func TestDiffFixtures(t *testing.T) {
	dir := t.TempDir()
	mrtr := filepath.Join("..", "..", "fixtures", "mrtr.jsonl")
	devtools := filepath.Join("..", "..", "fixtures", "devtools-60calls.jsonl")
	failing := fixtureVariant(t, dir, "mrtr.jsonl", "failing.jsonl",
		`"id":4,"result":{"content":[]}`, `"id":4,"result":{"content":[],"isError":true}`)
	slow := fixtureVariant(t, dir, "mrtr.jsonl", "slow.jsonl", `"seq":8,"ts":"2026-07-28T12:00:39.200Z"`, `"seq":8,"ts":"2026-07-28T12:00:40.000Z"`)
	destructive := fixtureVariant(t, dir, "devtools-60calls.jsonl", "destructive.jsonl",
		`"readOnlyHint":false,"destructiveHint":false,"openWorldHint":true`, `"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true`)
	icons := fixtureVariant(t, dir, "devtools-60calls.jsonl", "icons.jsonl",
		`"name":"get_weather"`, `"name":"get_weather","icons":[{"src":"https://example.com/sun.png"}]`)

	tests := []struct {
		name     string
		args     []string
		code     int
		want     string // whole stdout
		contains string // or a line of it
	}{
		{name: "self-diff is clean", args: []string{mrtr, mrtr}, want: "mcpsnoop diff demo -> demo\nno differences found\n"},
		{name: "self-diff gates nothing", args: []string{"--exit-code", mrtr, mrtr}, want: "mcpsnoop diff demo -> demo\nno differences found\n"},
		{name: "started failing", args: []string{mrtr, failing}, want: "mcpsnoop diff demo -> demo\ncalls:\n  status changed: lookup_price {} ok -> error\n"},
		{name: "started failing, gated", args: []string{"--exit-code", mrtr, failing}, code: 1, contains: "  status changed: lookup_price {} ok -> error\n"},
		{name: "recovered, gated", args: []string{"--exit-code", failing, mrtr}, contains: "  status changed: lookup_price {} error -> ok\n"},
		{name: "slowed", args: []string{"--exit-code", mrtr, slow}, code: 1, want: "mcpsnoop diff demo -> demo\ndurations:\n  slower: lookup_price {} 200ms -> 1s\n"},
		{name: "sped up", args: []string{"--exit-code", slow, mrtr}, want: "mcpsnoop diff demo -> demo\ndurations:\n  faster: lookup_price {} 1s -> 200ms\n"},
		{name: "slowed, under a larger threshold", args: []string{"--exit-code", "--duration-threshold", "1s", mrtr, slow}, want: "mcpsnoop diff demo -> demo\nno differences found\n"},
		{name: "slowed, under a larger ratio", args: []string{"--exit-code", "--duration-ratio", "5.5", mrtr, slow}, want: "mcpsnoop diff demo -> demo\nno differences found\n"},
		{name: "annotation changed", args: []string{devtools, destructive}, contains: "tools:\n  annotations changed: create_issue\n"},
		{name: "annotation changed, gated", args: []string{"--exit-code", devtools, destructive}, code: 1, contains: "  annotations changed: create_issue\n"},
		{name: "icon change alone passes the gate", args: []string{"--exit-code", devtools, icons}, contains: "tools:\n  icons changed: get_weather\n"},
		{name: "tools added pass the gate", args: []string{"--exit-code", mrtr, devtools}, contains: "  added: get_weather\n"},
		{name: "tools removed fail it", args: []string{"--exit-code", devtools, mrtr}, code: 1, contains: "  removed: get_weather\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := diffRun(t, tt.args...)
			if code != tt.code || stderr != "" {
				t.Errorf("exit %d, stderr %q; want exit %d and no stderr", code, stderr, tt.code)
			}
			if tt.want != "" && stdout != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.want)
			}
			if tt.contains != "" && !strings.Contains(stdout, tt.contains) {
				t.Errorf("stdout:\n%s\nwant it to contain:\n%s", stdout, tt.contains)
			}
		})
	}
}

// A call is matched by its tool and arguments however they are spelled, and
// only the first session of each log is compared.
func TestDiffMatchesCallsAndFirstSession(t *testing.T) {
	dir := t.TempDir()
	call := func(sid string, id int, ts, args string) string {
		return strings.ReplaceAll(frameLine(id*2-1, ts, "c2s", `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"search","arguments":`+args+`}}`), `"s1"`, `"`+sid+`"`)
	}
	answer := func(sid string, id int, ts, result string) string {
		return strings.ReplaceAll(frameLine(id*2, ts, "s2c", `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":`+result+`}`), `"s1"`, `"`+sid+`"`)
	}
	before := call("b1", 1, "00.000Z", `{"q":"go","n":1}`) + answer("b1", 1, "00.010Z", `{"content":[]}`) +
		call("b2", 1, "01.000Z", `{"q":"x"}`) + answer("b2", 1, "01.010Z", `{"content":[]}`)
	after := call("a1", 1, "00.000Z", `{ "n" : 1, "q" : "go" }`) + answer("a1", 1, "00.010Z", `{"isError":true,"content":[]}`) +
		call("a2", 1, "01.000Z", `{"q":"x"}`) + answer("a2", 1, "01.010Z", `{"isError":true}`)
	b, a := filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "a.jsonl")
	writeFile(t, b, []byte(before))
	writeFile(t, a, []byte(after))
	code, stdout, stderr := diffRun(t, "--exit-code", b, a)
	want := "mcpsnoop diff b1 -> a1\ncalls:\n  status changed: search {\"n\":1,\"q\":\"go\"} ok -> error\n"
	if code != 1 || stdout != want || stderr != "" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr: %s\nwant exit 1 and:\n%s", code, stdout, stderr, want)
	}
}

// Session ids resolve in the state directory, as they do for check.
func TestDiffSessionIDs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "mrtr.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "sessions", "one.jsonl"), data)
	writeFile(t, filepath.Join(home, "sessions", "two.jsonl"), data)
	code, stdout, stderr := diffRun(t, "one", "two")
	if code != 0 || stdout != "mcpsnoop diff demo -> demo\nno differences found\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Bad flags and inputs exit 2 with nothing on stdout and one stderr line.
func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", dir)
	mrtr := filepath.Join("..", "..", "fixtures", "mrtr.jsonl")
	notLog := filepath.Join(dir, "notes.jsonl")
	writeFile(t, notLog, []byte("hello\n"))
	tests := []struct {
		name string
		args []string
		want string // stderr line, without its newline
	}{
		{"negative threshold", []string{"--duration-threshold", "-1ms", mrtr, mrtr}, "mcpsnoop diff: --duration-threshold must not be negative"},
		{"ratio below 1", []string{"--duration-ratio", "0.5", mrtr, mrtr}, "mcpsnoop diff: --duration-ratio must be finite and at least 1"},
		{"ratio NaN", []string{"--duration-ratio", "NaN", mrtr, mrtr}, "mcpsnoop diff: --duration-ratio must be finite and at least 1"},
		{"ratio infinite", []string{"--duration-ratio", "+Inf", mrtr, mrtr}, "mcpsnoop diff: --duration-ratio must be finite and at least 1"},
		{"threshold not a duration", []string{"--duration-threshold", "soon", mrtr, mrtr}, `mcpsnoop diff: invalid argument "soon" for "--duration-threshold" flag: time: invalid duration "soon"`},
		{"one argument", []string{mrtr}, "mcpsnoop: accepts 2 arg(s), received 1"},
		{"three arguments", []string{mrtr, mrtr, mrtr}, "mcpsnoop: accepts 2 arg(s), received 3"},
		{"standard input", []string{"-", mrtr}, "mcpsnoop diff: diff reads two logs from files or session ids, not standard input (-)"},
		{"missing log", []string{mrtr, "gone.jsonl"}, `mcpsnoop diff: session log "gone.jsonl" not found`},
		{"unknown session id", []string{"nope", mrtr}, `mcpsnoop diff: no session "nope": it is no file here, and no log in ` + filepath.Join(dir, "sessions") + ` has that id or label`},
		{"directory", []string{dir, mrtr}, "mcpsnoop diff: " + dir + ": is a directory; diff compares two logs, name a file or a session id"},
		{"not a session log", []string{mrtr, notLog}, "mcpsnoop diff: " + notLog + ": line 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := diffRun(t, tt.args...)
			if code != 2 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("stderr %q, want one line starting %q", stderr, tt.want)
			}
		})
	}
}
