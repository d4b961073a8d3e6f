package termsafe

import "testing"

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{"plain tools/call", false, "plain tools/call"},
		{"日本語 ünï", false, "日本語 ünï"},
		{"a\x1b[31mred\x1b]0;title\x07", false, `a\x1b[31mred\x1b]0;title\a`},
		{"two\nlines\r\nand\ttab", false, `two\nlines\r\nand tab`},
		{"two\nlines\r\nand\ttab", true, "two\nlines\nand     tab"},
		{"c1\u009b2J rlo\u202e", false, `c1\u009b2J rlo\u202e`},
		{"bad\xffbyte", false, `bad\xffbyte`},
	} {
		if got := Clean(tc.in, tc.multiline); got != tc.want {
			t.Errorf("Clean(%q, %v) = %q, want %q", tc.in, tc.multiline, got, tc.want)
		}
	}

}
