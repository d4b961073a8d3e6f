package known

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestParse(t *testing.T) {
	data := "# a comment\n\n" +
		"3f2a9c0d1e2b4a5f \"github\" # mcpsnoop/error tools/call x: boom\n" +
		"  00000000000000AA\n" +
		"00000000000000bb \"127.0.0.1:8080\"\n" +
		"00000000000000cc#no space\n"
	got, err := Parse([]byte(data), "known.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []checker.KnownFinding{
		{Fingerprint: "3f2a9c0d1e2b4a5f", Label: "github", Note: "mcpsnoop/error tools/call x: boom", Line: 3},
		{Fingerprint: "00000000000000aa", Line: 4},
		{Fingerprint: "00000000000000bb", Label: "127.0.0.1:8080", Line: 5},
		{Fingerprint: "00000000000000cc", Note: "no space", Line: 6},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for _, tc := range []struct{ in, err string }{
		{"xyz\n", `known.txt: line 1: "xyz" is not a fingerprint (16 hex digits, as in SARIF's partialFingerprints)`},
		{"# ok\n3f2a9c0d1e2b4a5 \"a\"\n", `known.txt: line 2: "3f2a9c0d1e2b4a5" is not a fingerprint`},
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
