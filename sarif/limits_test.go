package sarif

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestCapMessage(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "tools/call x failed", "tools/call x failed"},
		{"exactly the cap", strings.Repeat("a", MaxMessageChars), strings.Repeat("a", MaxMessageChars)},
		{"one over", strings.Repeat("a", MaxMessageChars+1),
			strings.Repeat("a", MaxMessageChars) + "… [message cut: 1001 characters, the first 1000 kept]"},
		// Characters, not bytes: a multi-byte rune is never split.
		{"runes", strings.Repeat("é", 2800000),
			strings.Repeat("é", MaxMessageChars) + "… [message cut: 2800000 characters, the first 1000 kept]"},
	} {
		got := capMessage(tc.in)
		if got != tc.want {
			t.Errorf("%s: got %d characters ending %q", tc.name, utf8.RuneCountInString(got), got[max(len(got)-60, 0):])
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: not valid UTF-8", tc.name)
		}
	}
}

// TestHugeMessagesAreCut: six server errors of 2.8 MB each (issue 19: a
// 12.7 MB upload) give a small file whose messages end in the note of the
// cut.
func TestHugeMessagesAreCut(t *testing.T) {
	var fs []checker.Finding
	for i := 1; i <= 6; i++ {
		msg := fmt.Sprintf("session s1 frame %d: tools/call big (id %d) ended in an error: %s", i, i, strings.Repeat("x", 2_800_000))
		fs = append(fs, finding(checker.SignalError, checker.LevelError, s1Log, uint64(i), i, msg))
	}
	var buf bytes.Buffer
	if err := Write(&buf, findingsReport(fs...), Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 64<<10 {
		t.Errorf("the report is %d bytes", buf.Len())
	}
	doc := checkInvariants(t, buf.Bytes())
	if n := len(doc.Runs[0].Results); n != 6 {
		t.Fatalf("%d results, want all 6", n)
	}
	for _, r := range doc.Runs[0].Results {
		if !strings.HasSuffix(r.Message.Text, "… [message cut: 2800061 characters, the first 1000 kept]") {
			t.Errorf("message ends %q", r.Message.Text[len(r.Message.Text)-80:])
		}
	}
}

// TestFileSizeCap: 5,000 findings whose messages, even cut, escape to six
// bytes a character would make a 30 MB file. The report keeps the most
// severe results that fit in MaxFileBytes and says how many it left out.
func TestFileSizeCap(t *testing.T) {
	const n = 5000
	var fs []checker.Finding
	for i := 1; i <= n; i++ {
		sig, level := checker.SignalError, checker.LevelError
		if i%2 == 0 {
			sig, level = checker.SignalPending, checker.LevelNote
		}
		msg := fmt.Sprintf("frame %d: %s", i, strings.Repeat("\x01", 2*MaxMessageChars))
		fs = append(fs, finding(sig, level, s1Log, uint64(i), i, msg))
	}
	var buf bytes.Buffer
	if err := Write(&buf, findingsReport(fs...), Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > MaxFileBytes {
		t.Fatalf("the report is %d bytes, more than %d", buf.Len(), MaxFileBytes)
	}
	doc := checkInvariants(t, buf.Bytes())
	res := doc.Runs[0].Results
	kept := len(res) - 1
	if kept < 1000 || kept >= n {
		t.Fatalf("%d results kept of %d", kept, n)
	}
	// As many as fit: one more would not have.
	if more, _ := render(findingsReport(fs...), Options{WorkDir: repo}, len(res)+1); len(more) <= MaxFileBytes {
		t.Errorf("%d results would have fit too (%d bytes)", len(res)+1, len(more))
	}
	for i, r := range res[:kept] {
		if r.Level != "error" && i < n/2 {
			t.Fatalf("result %d is a %s before every error was kept", i, r.Level)
		}
	}
	last := res[kept]
	want := fmt.Sprintf("the capture holds %d findings, and with all of them this report would pass the 10 MB a code-scanning upload accepts, so %d of them were left out of this report; the text and junit formats report all of them", n, n-kept)
	if last.RuleID != RuleReportTruncated || last.Message.Text != want {
		t.Errorf("last result %s %q\nwant %q", last.RuleID, last.Message.Text, want)
	}
}
