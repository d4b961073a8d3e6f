package jsonwalk

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWalkValid(t *testing.T) {
	b := []byte(`{"a":[1,{"b":"x\"}"}], "c" : "d\\", "e":true}`)
	var keys []string
	end := Members(b, 0, func(ks, ke, vs int) int {
		keys = append(keys, string(b[ks:ke]))
		return SkipValue(b, vs)
	})
	if end != len(b) || len(keys) != 3 || keys[1] != `"c"` {
		t.Fatalf("end %d keys %q", end, keys)
	}
}

// FuzzWalk: whatever the bytes, nothing panics and every index stays
// within them. The seed `{"` is what once made withhold (capture) read
// past the end of a message cut after a key's opening quote.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{"`, `{"a"`, `{"a":`, `{"a" 1`, `[`, `"\`, `{"a":{"b":[1,2`, `{}`, `{"a":1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b)+1; i++ {
			if e := SkipValue(b, i); e > len(b) || (i < len(b) && e < i) {
				t.Fatalf("SkipValue(%q, %d) = %d", b, i, e)
			}
			if e := SkipWS(b, i); e > len(b) {
				t.Fatalf("SkipWS(%q, %d) = %d", b, i, e)
			}
		}
		if len(b) > 0 && b[0] == '{' {
			end := Members(b, 0, func(ks, ke, vs int) int {
				if ks > ke || ke > len(b) || vs >= len(b) {
					t.Fatalf("member of %q at %d %d %d", b, ks, ke, vs)
				}
				_ = b[vs]
				return SkipValue(b, vs)
			})
			if end > len(b) {
				t.Fatalf("Members(%q) = %d", b, end)
			}
			if json.Valid(b) && end != len(bytes.TrimRight(b, " \t\r\n")) {
				t.Fatalf("Members(%q) ended at %d of a valid object", b, end)
			}
		}
	})
}
