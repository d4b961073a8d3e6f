package capture

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Text that is almost JSON still has its secrets found: a tolerant scan
// replaces the value of every quoted name that is a redact key.
func TestRedactAlmostJSON(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true, Keys: []string{"sessionKey"}})
	tests := []struct{ in, want string }{
		{`{"password":"S08",}`, `{"password":"[REDACTED]",}`},
		{`{'token': 'abc', "x": 1}`, `{'token': '[REDACTED]', "x": 1}`},
		{`login failed: {"user":"ada", "PassWord": hunter2 }`, `login failed: {"user":"ada", "PassWord": "[REDACTED]" }`},
		{`{"secret": {"a": [1, 2], "b": "}"}, "ok": true,}`, `{"secret": "[REDACTED]", "ok": true,}`},
		{`it's broken: "api_key" : "k-1" // why`, `it's broken: "api_key" : "[REDACTED]" // why`},
		{`{"sessionKey":"s\"q", "access_token":"a",`, `{"sessionKey":"[REDACTED]", "access_token":"[REDACTED]",`},
		{`{"client_secret": "cut off`, `{"client_secret": "[REDACTED]"`},
		{`{"name":"token", "value": 1,}`, ``},
		{`no pairs here: token, password`, ``},
	}
	for _, tt := range tests {
		for _, dir := range []string{ClientToServer, Stderr} {
			f := Frame{Direction: dir, Text: tt.in}
			changed := r.Apply(&f)
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if f.Text != want || changed != (tt.want != "") || f.Redacted != changed {
				t.Errorf("%s %q:\ngot  %q (changed %v)\nwant %q", dir, tt.in, f.Text, changed, want)
			}
		}
	}
}

// nested is a JSON-RPC message whose result holds depth levels of objects,
// with a secret at the bottom.
func nested(depth int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"isError":true,"content":`)
	for range depth {
		b.WriteString(`{"password":"p","a":`)
	}
	b.WriteString(`"bottom secret"`)
	b.WriteString(strings.Repeat("}", depth))
	b.WriteString(`}}`)
	return []byte(b.String())
}

// A message that would cost a path rule more than its budget is withheld,
// not redacted: logged as what keeps its kind and id, marked
// redaction_skipped, in time and memory linear in its size. A smaller one
// is redacted as usual.
func TestRedactBudget(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Paths: []string{"$..password"}})
	deep := nested(5000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := Frame{Direction: ServerToClient, Raw: deep}
	changed := r.Apply(&f)
	runtime.ReadMemStats(&after)
	if !changed || !f.RedactionSkipped || !f.Redacted || string(f.Raw) != `{"id":7,"jsonrpc":"2.0","result":{"isError":true}}` {
		t.Errorf("deep message: changed %v skipped %v raw %.200s", changed, f.RedactionSkipped, f.Raw)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(deep)) {
		t.Errorf("giving up on a %d-byte message allocated %d bytes", len(deep), alloc)
	}

	shallow := Frame{Direction: ServerToClient, Raw: nested(50)}
	if !r.Apply(&shallow) || shallow.RedactionSkipped || strings.Contains(string(shallow.Raw), `"p"`) {
		t.Errorf("shallow message: %.200s (skipped %v)", shallow.Raw, shallow.RedactionSkipped)
	}
}

// A message too deep to parse cannot have any rule applied: withheld too,
// never logged with what the rules hide. The skeleton keeps a request's
// method and an error's code; headers that may mirror its arguments go.
func TestRedactGivesUpOnUnparsable(t *testing.T) {
	r := mustRedactor(t, RedactOptions{Secrets: true})
	tooDeep := []byte(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"arguments":` + strings.Repeat(`{"token":"t","a":`, 10001) + `1` + strings.Repeat("}", 10001) + `}}`)
	f := Frame{Direction: ClientToServer, Raw: tooDeep, McpName: "echo", McpParamHeaders: []ParamHeader{{Name: "Mcp-Param-Region", Value: "eu"}}}
	r.Apply(&f)
	if !f.RedactionSkipped || string(f.Raw) != `{"id":"q","jsonrpc":"2.0","method":"tools/call"}` || f.McpName != RedactedValue || f.McpParamHeaders[0].Value != RedactedValue {
		t.Errorf("too deep: %+v", f)
	}
	for raw, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad token t"}}`: `{"error":{"code":-32602,"message":"[REDACTED]"},"id":1,"jsonrpc":"2.0"}`,
		`{"method":"notifications/progress","params":{"x":1}}`:                     `{"method":"notifications/progress"}`,
		`[1,2]`: `"[REDACTED]"`,
	} {
		if got := string(withhold([]byte(raw))); got != want {
			t.Errorf("withhold(%s) = %s, want %s", raw, got, want)
		}
	}
}

// A message nested deeper than the scanner takes is logged as text; a
// secret planted in it never reaches the log bytes, whatever the rule that
// should hide it: the frame is withheld (redaction_skipped).
func TestRedactWithholdsTextTooDeepToParse(t *testing.T) {
	const secret = "S3CR3T-planted"
	const depth = maxNesting + 1
	message := func(open, close string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":` +
			strings.Repeat(open, depth) + `"` + secret + `"` + strings.Repeat(close, depth) + `}}` + "\n")
	}
	shapes := map[string][]byte{
		"objects": message(`{"secret":"`+secret+`","a":`, `}`),
		"arrays":  message(`["`+secret+`",`, `]`),
	}
	for _, rules := range []RedactOptions{
		{Paths: []string{"$..secret"}},
		{Paths: []string{"$.params.arguments"}},
		{Keys: []string{"secret"}, Values: []string{"nomatch"}},
	} {
		for shape, line := range shapes {
			t.Run(fmt.Sprintf("%v %s", rules, shape), func(t *testing.T) {
				out := &memLog{}
				w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "deep.jsonl", Redactor: mustRedactor(t, rules)})
				l := w.Lines(ServerToClient)
				for rest := line; len(rest) > 0; {
					buf := l.Buffer(min(len(rest), 32<<10))
					n := copy(buf, rest)
					l.Number(buf[:n])
					l.Fill()
					rest = rest[n:]
				}
				l.End()
				if lost := w.Close(); lost != 0 {
					t.Fatalf("lost %d", lost)
				}
				if bytes.Contains(out.buf.Bytes(), []byte(secret)) {
					t.Fatalf("the secret is in the log (%d bytes)", out.buf.Len())
				}
				frames := out.frames(t)
				if len(frames) != 1 || !frames[0].RedactionSkipped || frames[0].Text != RedactedValue {
					t.Errorf("frames: %.300v", frames)
				}
			})
		}
	}
}
