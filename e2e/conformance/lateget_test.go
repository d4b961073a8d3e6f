package conformance

import "testing"

func TestLateGETOnly(t *testing.T) {
	const log = `{"direction":"meta","raw":{"target":{}}}
{"direction":"c2s","http_method":"POST","raw":{"jsonrpc":"2.0","id":1,"method":"initialize"}}
{"direction":"s2c","http_method":"GET","status":400,"raw":{"jsonrpc":"2.0","error":{"code":-32000,"message":"early"}}}
{"direction":"s2c","http_method":"DELETE","status":200}
{"direction":"s2c","http_method":"GET","status":400,"raw":{"jsonrpc":"2.0","error":{"code":-32000,"message":"No valid session ID provided"}}}
{"direction":"s2c","http_method":"POST","status":500}
`
	const refused = `{"direction":"s2c","http_method":"DELETE","status":405}
{"direction":"s2c","http_method":"GET","status":400}
`
	for _, tc := range []struct {
		name  string
		log   string
		lines []int
		want  bool
	}{
		{"a GET answered after the DELETE", log, []int{5}, true},
		{"the same GET answer twice", log, []int{5, 5}, true},
		{"a GET answered before the DELETE", log, []int{3}, false},
		{"a POST answered after the DELETE", log, []int{5, 6}, false},
		{"no findings", log, nil, false},
		{"a DELETE the server refused ends nothing", refused, []int{2}, false},
	} {
		got, err := LateGETOnly([]byte(tc.log), tc.lines)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := LateGETOnly([]byte("{\n"), []int{1}); err == nil {
		t.Error("a log that is not JSON lines: no error")
	}
}
