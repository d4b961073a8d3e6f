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
		// The edges of every escaped range, each beside its first safe neighbour.
		{"del\x7f~", false, `del\x7f~`},
		{"c1 \u0080 \u009f \u00a0", false, `c1 \u0080 \u009f ` + "\u00a0"},
		{"bidi \u2029\u202a\u202e\u202f", false, "bidi \u2029" + `\u202a\u202e` + "\u202f"},
		{"isolates \u2065\u2066\u2067\u2068\u2069\u206a", true, "isolates \u2065" + `\u2066\u2067\u2068\u2069` + "\u206a"},
		{"only-multibyte \u2069", false, `only-multibyte \u2069`},
	} {
		if got := Clean(tc.in, tc.multiline); got != tc.want {
			t.Errorf("Clean(%q, %v) = %q, want %q", tc.in, tc.multiline, got, tc.want)
		}
	}

}
