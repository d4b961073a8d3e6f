package known

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

func TestParse(t *testing.T) {
	data := "# a comment\n\n" +
		"3f2a9c0d1e2b4a5f \"github\" # mcpsnoop/error tools/call x: boom\n" +
		"  00000000000000AA\n" +
		"00000000000000bb \"127.0.0.1:8080\"\n" +
		"00000000000000cc#no space\n" +
		"09afAF09afAF09af\n"
	got, err := Parse([]byte(data), "known.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []checker.KnownFinding{
		{Fingerprint: "3f2a9c0d1e2b4a5f", Label: "github", Note: "mcpsnoop/error tools/call x: boom", Line: 3},
		{Fingerprint: "00000000000000aa", Line: 4},
		{Fingerprint: "00000000000000bb", Label: "127.0.0.1:8080", Line: 5},
		{Fingerprint: "00000000000000cc", Note: "no space", Line: 6},
		{Fingerprint: "09afaf09afaf09af", Line: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for _, tc := range []struct{ in, err string }{
		{"xyz\n", `known.txt: line 1: "xyz" is not a fingerprint (16 hex digits, as in SARIF's partialFingerprints)`},
		{"# ok\n3f2a9c0d1e2b4a5 \"a\"\n", `known.txt: line 2: "3f2a9c0d1e2b4a5" is not a fingerprint`},
		{"3f2a9c0d1e2b4a5f0\n", `known.txt: line 1: "3f2a9c0d1e2b4a5f0" is not a fingerprint`}, // 17 digits
		{"3f2a9c0d1e2b4a5g\n", `known.txt: line 1: "3f2a9c0d1e2b4a5g" is not a fingerprint`},   // g is no hex digit
		{"3f2a9c0d1e2b4a5G\n", `known.txt: line 1: "3f2a9c0d1e2b4a5G" is not a fingerprint`},
		{"3f2a9c0d1e2b4a5/\n", `known.txt: line 1: "3f2a9c0d1e2b4a5/" is not a fingerprint`},           // the byte before 0
		{"3f2a9c0d1e2b4a5:\n", `known.txt: line 1: "3f2a9c0d1e2b4a5:" is not a fingerprint`},           // the byte after 9
		{"3f2a9c0d1e2b4a5`\n", `known.txt: line 1: "3f2a9c0d1e2b4a5` + "`" + `" is not a fingerprint`}, // the byte before a
		{"3f2a9c0d1e2b4a5@\n", `known.txt: line 1: "3f2a9c0d1e2b4a5@" is not a fingerprint`},           // the byte before A
		{"3f2a9c0d1e2b4a5f \"open\n", `known.txt: line 1: the server label is not a quoted string: "open`},
		{"3f2a9c0d1e2b4a5f github\n", `known.txt: line 1: unexpected "github" after the fingerprint`},
	} {
		if _, err := Parse([]byte(tc.in), "known.txt"); err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %s", tc.in, err, tc.err)
		}
	}
}

// Write lists this check's findings (keeping the comments the old file gave
// them), then the old entries of servers it did not check; it drops the
// old entries of checked servers that no finding matched (stale). What it
// writes parses back.
func TestWriteRoundTrip(t *testing.T) {
	rep := &checker.Report{
		Sessions: []*checker.SessionReport{{ID: "s1", Label: "github"}},
		Fingerprints: []checker.FingerprintEntry{
			{Fingerprint: "1111111111111111", Label: "github", Rule: "mcpsnoop/error", Method: "tools/call", Tool: "x", Text: "line1\nline2"},
			{Fingerprint: "2222222222222222", Label: "github", Rule: "mcpsnoop/warn", Kind: "response id has no matching request"},
			{Fingerprint: "1111111111111111", Label: "github", Rule: "mcpsnoop/error"}, // another session's copy
		},
	}
	old := []checker.KnownFinding{
		{Fingerprint: "2222222222222222", Label: "github", Note: "accepted in #42"},
		{Fingerprint: "3333333333333333", Label: "github", Note: "stale: fixed"},
		{Fingerprint: "4444444444444444", Label: "files", Note: "another server"},
		{Fingerprint: "5555555555555555"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, old); err != nil {
		t.Fatal(err)
	}
	want := Header + "\n" +
		`1111111111111111 "github" # mcpsnoop/error tools/call x: line1\nline2` + "\n" +
		`2222222222222222 "github" # accepted in #42` + "\n" +
		"# kept: servers this check did not see\n" +
		`4444444444444444 "files" # another server` + "\n" +
		"5555555555555555\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	back, err := Parse(buf.Bytes(), "w")
	if err != nil || len(back) != 4 || back[0].Note != `mcpsnoop/error tools/call x: line1\nline2` || back[2].Label != "files" {
		t.Errorf("parsed back %+v, %v", back, err)
	}
}

// recordedNote is the fingerprint the first-seen baseline note of label
// had, as the engine makes it.
func recordedNote(t *testing.T, label string) string {
	t.Helper()
	eng := checker.New(checker.Config{Baseline: createdStore{}})
	log := `{"session_id":"s","server_label":"` + label + `","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"session_id":"s","server_label":"` + label + `","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
`
	r := capture.NewReader(strings.NewReader(log), "t.jsonl")
	for {
		f, line, err := r.Next()
		if err != nil {
			break
		}
		eng.Ingest(&f, checker.Position{Path: "t.jsonl", Line: line})
	}
	for _, f := range eng.Report().Findings {
		if f.Kind == "recorded first-seen tool baseline" {
			return f.Fingerprint
		}
	}
	t.Fatal("no first-seen note")
	return ""
}

type createdStore struct{}

func (createdStore) Observe(checker.BaselineKey, []tooldef.Tool) (checker.BaselineObservation, error) {
	return checker.BaselineObservation{Created: true, Version: 2}, nil
}
func (createdStore) Location() string { return "/b" }

// A rewrite drops the first-seen notes earlier versions wrote, and an
// entry made under a checked server's old label gives way to the finding
// it accepted, comment and all; the old label's other entries go too.
func TestWriteAfterUpgrade(t *testing.T) {
	rep := &checker.Report{
		Sessions: []*checker.SessionReport{{ID: "s1", Label: "weather"}},
		Fingerprints: []checker.FingerprintEntry{
			{Fingerprint: "1111111111111111", Label: "weather", Rule: "mcpsnoop/error", Replaces: "aaaaaaaaaaaaaaaa"},
			{Fingerprint: "2222222222222222", Label: "weather", Rule: "mcpsnoop/warn", Kind: "k", Replaces: "bbbbbbbbbbbbbbbb"},
		},
		Known: &checker.KnownSummary{OldLabels: []string{"index.js"}},
	}
	old := []checker.KnownFinding{
		{Fingerprint: "aaaaaaaaaaaaaaaa", Label: "index.js", Note: "accepted in #7"},
		{Fingerprint: "bbbbbbbbbbbbbbbb", Label: "index.js"},
		{Fingerprint: "cccccccccccccccc", Label: "index.js", Note: "matched nothing"},
		{Fingerprint: recordedNote(t, "weather"), Label: "weather", Note: "mcpsnoop/drift: recorded first-seen tool baseline"},
		{Fingerprint: recordedNote(t, "files"), Label: "files", Note: "mcpsnoop/drift: recorded first-seen tool baseline"},
		{Fingerprint: "dddddddddddddddd", Label: "files", Note: "another server"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, old); err != nil {
		t.Fatal(err)
	}
	want := Header + "\n" +
		`1111111111111111 "weather" # accepted in #7` + "\n" +
		`2222222222222222 "weather" # mcpsnoop/warn: k` + "\n" +
		"# kept: servers this check did not see\n" +
		`dddddddddddddddd "files" # another server` + "\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A session without a server label is checked like any other: an entry
// without a label that no finding matched names no server, so a rewrite
// keeps it, while one that a finding matched is written once, with its
// comment.
func TestWriteKeepsUnlabelledEntries(t *testing.T) {
	rep := &checker.Report{
		Sessions:     []*checker.SessionReport{{ID: "s1", Label: ""}},
		Fingerprints: []checker.FingerprintEntry{{Fingerprint: "1111111111111111", Rule: "mcpsnoop/error", Kind: "k"}},
	}
	old := []checker.KnownFinding{
		{Fingerprint: "1111111111111111", Note: "accepted in #9"},
		{Fingerprint: "5555555555555555", Note: "not seen this time"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, old); err != nil {
		t.Fatal(err)
	}
	want := Header + "\n" +
		"1111111111111111 # accepted in #9\n" +
		"# kept: servers this check did not see\n" +
		"5555555555555555 # not seen this time\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
