package jsonstring

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodingJSON is what encoding/json writes for s.
func encodingJSON(t *testing.T, s string, html bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// FuzzAppend holds Append to encoding/json's bytes in both modes, and Len
// and Cut to what it writes.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\x00\x1f\x7f\b\f\n\r\t", "\u2028\u2029", "bad \xff\xfe", "é😀", `"\`, strings.Repeat("<\x01é", 30000)} {
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		for _, html := range []bool{false, true} {
			if got, want := Append(nil, s, html), encodingJSON(t, s, html); !bytes.Equal(got, want) {
				t.Fatalf("Append(%q, html %v) = %s, want %s", s, html, got, want)
			}
		}
		got := Append([]byte("x"), s, false)[1:]
		if n := Len(s); n != len(got)-2 {
			t.Fatalf("Len(%q) = %d, want %d", s, n, len(got)-2)
		}
		limit = max(limit, 0) % (len(got) + 2)
		cut := Cut(s, limit)
		if !strings.HasPrefix(s, cut) || Len(cut) > limit {
			t.Fatalf("Cut(%q, %d) = %q", s, limit, cut)
		}
		if cut != s {
			_, size := utf8.DecodeRuneInString(s[len(cut):])
			if Len(s[:len(cut)+size]) <= limit {
				t.Fatalf("Cut(%q, %d) = %q: the next character fits", s, limit, cut)
			}
		}
	})
}
