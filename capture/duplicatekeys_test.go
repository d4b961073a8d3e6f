package capture

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// duplicateKeysByTokens is the plain encoding/json reading of the question
// hasDuplicateKeys answers in one byte walk; the fuzz test holds the two
// to the same answers.
func duplicateKeysByTokens(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				if top != nil && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			case '[':
				if top != nil && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return false
				}
			}
		case string:
			if top != nil && top.keys != nil && top.expectKey {
				if top.keys[t] {
					return true
				}
				top.keys[t] = true
				top.expectKey = false
				continue
			}
			if top != nil && top.keys != nil {
				top.expectKey = true
			}
		default:
			if top != nil && top.keys != nil {
				top.expectKey = true
			}
		}
	}
}

func TestHasDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":2}`, false},
		{`{"a":1,"a":2}`, true},
		{`{"a":1,"\u0061":2}`, true},
		{`[{"k":1},{"k":2}]`, false},
		{`{"x":{"k":1},"y":{"k":2}}`, false},
		{`{"x":[1,{"k":1,"k":2}]}`, true},
		{` "s" `, false},
		{`{}`, false},
	} {
		if got := hasDuplicateKeys([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzHasDuplicateKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":1,"c":{"b":2}}]}`, `[1,"x",{"\u0041":1,"A":2}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return // the redactor asks only about JSON it decoded
		}
		if got, want := hasDuplicateKeys(raw), duplicateKeysByTokens(raw); got != want {
			t.Fatalf("%q: %v, the token reading says %v", raw, got, want)
		}
	})
}

// A tool result of about 3.6 KB, the kind every redacted frame carries.
var benchResult = []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[` + strings.Repeat(`{"type":"text","text":"line of tool output with some words in it","annotations":{"audience":["user"],"priority":0.5}},`, 30) + `{"type":"text","text":"end"}],"isError":false}}`)

func BenchmarkHasDuplicateKeys(b *testing.B) {
	for b.Loop() {
		hasDuplicateKeys(benchResult)
	}
}

func BenchmarkDuplicateKeysByTokens(b *testing.B) {
	for b.Loop() {
		duplicateKeysByTokens(benchResult)
	}
}
