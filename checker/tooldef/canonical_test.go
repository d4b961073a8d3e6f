package tooldef_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"keys sorted", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"nested sorted", `{"z":{"y":1,"x":[{"d":1,"c":2}]},"a":null}`, `{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}`},
		{"arrays keep order", `[3, 1, [2, 0], {"b":true,"a":false}]`, `[3,1,[2,0],{"a":false,"b":true}]`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\":{ } } \n", `{"a":[1,2],"b":{}}`},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[],"b":{}}`},
		{"1.0 kept", `1.0`, `1.0`},
		{"exponent kept", `[1e3, 1E3, 1e+3, 1.5e-7]`, `[1e3,1E3,1e+3,1.5e-7]`},
		{"minus zero kept", `-0`, `-0`},
		{"minus zero float kept", `-0.0`, `-0.0`},
		{"big int kept", `12345678901234567890123`, `12345678901234567890123`},
		{"int past float64 precision", `{"n":9007199254740993}`, `{"n":9007199254740993}`},
		{"long fraction kept", `0.1000000000000000000000001`, `0.1000000000000000000000001`},
		{"no html escaping", `"<b>&amp;</b>"`, `"<b>&amp;</b>"`},
		{"html in keys", `{"a<b":">"}`, `{"a<b":">"}`},
		{"unicode literal", `"héllo ☃ 😀"`, `"héllo ☃ 😀"`},
		{"unicode escapes decoded", `"\u00e9\u2603\ud83d\ude00"`, `"é☃😀"`},
		{"solidus unescaped", `"a\/b"`, `"a/b"`},
		{"control escapes", `"\u0001\b\f\n\r\t"`, `"\u0001\b\f\n\r\t"`},
		{"quote and backslash", `"\"\\"`, `"\"\\"`},
		{"line separators escaped", "\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"keys sorted by bytes", `{"é":1,"z":2,"Z":3,"a":4}`, `{"Z":3,"a":4,"z":2,"é":1}`},
		{"duplicate key keeps last", `{"a":1,"a":2}`, `{"a":2}`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"scalar string", `"x"`, `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tooldef.CanonicalJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("CanonicalJSON(%s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("CanonicalJSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
			again, err := tooldef.CanonicalJSON(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalJSONErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "unexpected end of JSON input"},
		{"blank", "  \n", "unexpected end of JSON input"},
		{"truncated", `{"a":`, "unexpected end of JSON input"},
		{"bad key", `{not json`, "invalid character 'n' looking for beginning of object key string"},
		{"trailing value", `1 2`, "invalid character '2' after top-level value"},
		{"trailing garbage", `{} x`, "invalid character 'x' after top-level value"},
		{"bad number", `01`, "invalid character '1' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tooldef.CanonicalJSON([]byte(tt.in))
			if err == nil {
				t.Fatalf("CanonicalJSON(%q) = %s, want error", tt.in, got)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}
