package export

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// indentCases are payloads that stress the indenter: nesting, empty
// containers, escapes (quotes and backslash runs), whitespace as other
// writers leave it, numbers as sent, non-ASCII text.
var indentCases = []string{
	`{}`, `[]`, `1`, `"x"`, `null`, `true`,
	`{"a":[],"b":{},"c":[{}],"d":[[]]}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
	`{"s":"a \"quoted\" \\\\ back\\\\\"slash\\\\","t":"\\u2028\u2028é"}`,
	`{"n":[1.0,1e3,-0,12345678901234567890,1.5E-7]}`,
	" { \"a\" : [ 1 , 2 ,\n\t{ \"b\" : { } } ] , \"c\" : \"d e\" } ",
	`[["\\\\"],"\\\"",{"k\"":"v"}]`,
	`"</script><img src=x onerror=alert(1)>"`,
}

func TestAppendIndentMatchesEncodingJSON(t *testing.T) {
	cases := append([]string(nil), indentCases...)
	for _, r := range rawFrames(t) {
		cases = append(cases, string(r))
	}
	for _, c := range cases {
		for depth := range 3 {
			var want bytes.Buffer
			if err := json.Indent(&want, []byte(strings.TrimSpace(c)), strings.Repeat("  ", depth), "  "); err != nil {
				t.Fatalf("%q: %v", c, err)
			}
			got := appendIndent(nil, []byte(c), depth)
			if string(got) != want.String() {
				t.Errorf("depth %d, %q:\ngot  %s\nwant %s", depth, c, got, want.String())
			}
		}
	}
}

func FuzzAppendIndent(f *testing.F) {
	for _, c := range indentCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			appendIndent(nil, []byte(s), 1) // must not panic
			return
		}
		var want bytes.Buffer
		json.Indent(&want, []byte(strings.TrimSpace(s)), "  ", "  ")
		if got := appendIndent(nil, []byte(s), 1); string(got) != strings.TrimRight(want.String(), " \t\r\n") {
			t.Errorf("%q:\ngot  %s\nwant %s", s, got, want.String())
		}
	})
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `q"b\s`, "ctl \x00\x01\x1f\b\f\n\r\t", "<a href='x'>&amp;</a>",
		"line\u2028sep\u2029", "bad \xff\xfe utf8", "é ü 日本 🙂", "\x7f"}
	for _, c := range cases {
		for _, html := range []bool{false, true} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			enc.Encode(c)
			want := strings.TrimSuffix(buf.String(), "\n")
			if got := string(appendString(nil, c, html)); got != want {
				t.Errorf("html=%v %q: got %s, want %s", html, c, got, want)
			}
		}
	}
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, 868.584778, 1e-7, 1.5e-6, 1e21, 123456789.123, 0.000001, math.MaxFloat64} {
		want, _ := json.Marshal(f)
		if got := string(appendFloat(nil, f)); got != string(want) {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestAppendTimeKeepsOffset(t *testing.T) {
	ts, _ := time.Parse(time.RFC3339Nano, "2026-11-29T11:43:43.0751686+01:00")
	want, _ := json.Marshal(ts)
	if got := string(appendTime(nil, ts)); got != string(want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCutUTF8(t *testing.T) {
	s := []byte("ab日本") // 日 and 本 are 3 bytes each
	for n, want := range map[int]string{0: "", 2: "ab", 3: "ab", 4: "ab", 5: "ab日", 7: "ab日", 8: "ab日本", 20: "ab日本"} {
		if got := string(cutUTF8(s, n)); got != want {
			t.Errorf("cut %d: got %q, want %q", n, got, want)
		}
	}
}
