package capture

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

type readResult struct {
	sessions []string
	lines    []int
	torn     bool
	err      string
}

func readAll(t *testing.T, input string) readResult {
	t.Helper()
	r := NewReader(strings.NewReader(input), "log.jsonl")
	var out readResult
	for {
		f, line, err := r.Next()
		if err == io.EOF {
			return out
		}
		if errors.Is(err, ErrTornTail) {
			out.torn = true
			return out
		}
		if err != nil {
			out.err = err.Error()
			return out
		}
		out.sessions = append(out.sessions, strings.Clone(f.SessionID)) // frames alias the buffer
		out.lines = append(out.lines, line)
	}
}

func TestReaderLayouts(t *testing.T) {
	a := `{"session_id":"a","seq":1}`
	b := `{"session_id":"b","seq":2}`
	tests := []struct {
		name     string
		input    string
		sessions []string
		lines    []int
		torn     bool
		err      string
	}{
		{name: "one per line", input: a + "\n" + b + "\n", sessions: []string{"a", "b"}, lines: []int{1, 2}},
		{name: "no final newline", input: a + "\n" + b, sessions: []string{"a", "b"}, lines: []int{1, 2}},
		{name: "blank lines and CRLF", input: "\n" + a + "\r\n\n  \n" + b + "\r\n", sessions: []string{"a", "b"}, lines: []int{2, 5}},
		{name: "two on one line", input: a + b + "\n" + a + "\n", sessions: []string{"a", "b", "a"}, lines: []int{1, 1, 2}},
		{name: "two on one line with space", input: a + "  " + b + "\n", sessions: []string{"a", "b"}, lines: []int{1, 1}},
		{name: "spanning lines", input: "{\n\"session_id\": \"a\",\n\"seq\": 1\n}\n" + b + "\n", sessions: []string{"a", "b"}, lines: []int{4, 5}},
		{name: "spanning then another on the closing line", input: "{\"session_id\":\n\"a\"}" + b + "\n", sessions: []string{"a", "b"}, lines: []int{2, 2}},
		{name: "brace inside a string", input: `{"session_id":"a}{","text":"\"}"}` + "\n", sessions: []string{"a}{"}, lines: []int{1}},
		{name: "torn tail", input: a + "\n" + `{"session_id":"b","se`, sessions: []string{"a"}, lines: []int{1}, torn: true},
		{name: "torn tail after blank", input: a + "\n\n" + `{"session_id":"b","raw":{"x":[1,`, sessions: []string{"a"}, torn: true, lines: []int{1}},
		{name: "cut line with newline is an error", input: a + "\n" + `{"session_id":"b","se` + "\n", sessions: []string{"a"}, lines: []int{1},
			err: "log.jsonl: line 2: invalid JSONL envelope: unexpected end of input"},
		{name: "not JSON", input: a + "\nhello world\n", sessions: []string{"a"}, lines: []int{1},
			err: "log.jsonl: line 2: invalid JSONL envelope: invalid character 'h' looking for beginning of value"},
		{name: "array", input: "[1,2]\n", err: "log.jsonl: line 1: invalid JSONL envelope: expected a JSON object, got an array"},
		{name: "string", input: "\"x\"\n", err: "log.jsonl: line 1: invalid JSONL envelope: expected a JSON object, got a string"},
		{name: "trailing comma", input: `{"session_id":"a",}` + "\n", err: "log.jsonl: line 1: invalid JSONL envelope: invalid character '}' looking for beginning of object key string"},
		{name: "mismatched bracket", input: `{"session_id":"a","raw":[}` + "\n" + a + "\n", err: "log.jsonl: line 1: invalid JSONL envelope"},
		{name: "bad ts", input: `{"session_id":"a","ts":"yesterday"}` + "\n", err: `log.jsonl: line 1: field ts: "yesterday" is not an RFC 3339 time`},
		{name: "seq not a number", input: `{"session_id":"a","seq":"1"}` + "\n", err: "log.jsonl: line 1: field seq must be an unsigned integer, got a string"},
		{name: "negative seq", input: `{"session_id":"a","seq":-1}` + "\n", err: "log.jsonl: line 1: field seq: -1 is not an unsigned integer"},
		{name: "empty", input: ""},
		{name: "only whitespace", input: "\n \n\t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, tt.input)
			if strings.Join(got.sessions, ",") != strings.Join(tt.sessions, ",") {
				t.Errorf("sessions = %q, want %q", got.sessions, tt.sessions)
			}
			if len(tt.lines) > 0 && !equalInts(got.lines, tt.lines) {
				t.Errorf("lines = %v, want %v", got.lines, tt.lines)
			}
			if got.torn != tt.torn {
				t.Errorf("torn = %v, want %v", got.torn, tt.torn)
			}
			if !strings.HasPrefix(got.err, tt.err) || (tt.err == "") != (got.err == "") {
				t.Errorf("err = %q, want prefix %q", got.err, tt.err)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReaderDecodesEveryField(t *testing.T) {
	line := `{"session_id":"s1","server_label":"srv","seq":7,"ts":"2026-01-02T03:04:05.123456789+01:00","direction":"c2s","transport":"http",` +
		`"raw":{"jsonrpc":"2.0","id":1,"method":"tools/call"},"text":"t\u00e9","mcp_method":"tools/call","mcp_name":"echo",` +
		`"mcp_protocol_version":"2026-07-28","mcp_param_headers":[{"name":"Mcp-Param-Region","value":"eu","redacted":true}],` +
		`"batch":true,"conn_id":"127.0.0.1:5","truncated":true,"redacted":true,"status":202,"auth_challenge":"Bearer x","future_field":{"a":1}}` + "\n"
	r := NewReader(strings.NewReader(line), "x")
	f, n, err := r.Next()
	if err != nil || n != 1 {
		t.Fatalf("Next: %v line %d", err, n)
	}
	want := Frame{
		SessionID: "s1", ServerLabel: "srv", Seq: 7,
		TS:        time.Date(2026, 1, 2, 2, 4, 5, 123456789, time.UTC),
		Direction: "c2s", Transport: "http",
		Raw:  []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`),
		Text: "té", McpMethod: "tools/call", McpName: "echo", McpProtocolVersion: "2026-07-28",
		McpParamHeaders: []ParamHeader{{Name: "Mcp-Param-Region", Value: "eu", Redacted: true}},
		Batch:           true, ConnID: "127.0.0.1:5", Truncated: true, Redacted: true, Status: 202, AuthChallenge: "Bearer x",
	}
	if !f.TS.Equal(want.TS) {
		t.Errorf("ts = %v, want %v", f.TS, want.TS)
	}
	f.TS, want.TS = time.Time{}, time.Time{}
	if !bytes.Equal(f.Raw, want.Raw) {
		t.Errorf("raw = %s", f.Raw)
	}
	f.Raw, want.Raw = nil, nil
	if got, exp := fmtFrame(f), fmtFrame(want); got != exp {
		t.Errorf("frame =\n%s\nwant\n%s", got, exp)
	}
}

func fmtFrame(f Frame) string {
	var b strings.Builder
	b.WriteString(f.SessionID + "|" + f.ServerLabel + "|" + f.Direction + "|" + f.Transport + "|" + f.Text + "|")
	b.WriteString(f.McpMethod + "|" + f.McpName + "|" + f.McpProtocolVersion + "|" + f.ConnID + "|" + f.AuthChallenge + "|")
	for _, h := range f.McpParamHeaders {
		b.WriteString(h.Name + "=" + h.Value)
		if h.Redacted {
			b.WriteString("(r)")
		}
	}
	if f.Batch {
		b.WriteString("|batch")
	}
	if f.Truncated {
		b.WriteString("|truncated")
	}
	if f.Redacted {
		b.WriteString("|redacted")
	}
	b.WriteString("|" + string(rune('0'+f.Status/100)))
	return b.String()
}

func TestReaderNullsAndCase(t *testing.T) {
	// null leaves a field at its zero value; a raw null is kept as the JSON
	// value null; field names match case-insensitively like encoding/json.
	r := NewReader(strings.NewReader(`{"Session_ID":"s1","seq":null,"raw":null,"text":null}`), "x")
	f, _, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if f.SessionID != "s1" || f.Seq != 0 || string(f.Raw) != "null" || f.Text != "" {
		t.Errorf("got %+v", f)
	}
}

// A single envelope far larger than the read buffer is read whole.
func TestReaderLargeFrame(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	input := `{"session_id":"s1","seq":1,"raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + big + `"}]}}}` + "\n" +
		`{"session_id":"s1","seq":2}` + "\n"
	got := readAll(t, input)
	if got.err != "" || len(got.sessions) != 2 || got.lines[1] != 2 {
		t.Fatalf("got %+v", got)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	data := []byte(`{"session_id":"s1","raw":{"a":1}}` + "\n")
	r := NewReader(bytes.NewReader(data), "x")
	f, _, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	c := f.Clone()
	for i := range f.Raw {
		f.Raw[i] = 'z'
	}
	if string(c.Raw) != `{"a":1}` || c.SessionID != "s1" {
		t.Errorf("clone changed: %+v", c)
	}
}

// A read error from the source is reported, never taken for the end.
func TestReaderSourceError(t *testing.T) {
	r := NewReader(io.MultiReader(strings.NewReader(`{"session_id":"a"}`+"\n"), errReader{}), "x")
	if _, _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// A line cut short in the middle of a log is reported at that line without
// reading the rest of the log into memory.
// (When the next line starts a new envelope the usual way, with its
// session_id, the cut line is a torn line instead: TestReaderTornLineMidLog.)
func TestReaderCutLineMidLog(t *testing.T) {
	good := `{"seq":1,"session_id":"s","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}` + "\n"
	for name, cut := range map[string]string{
		"inside a string":  `{"session_id":"s","raw":{"text":"abc`,
		"after a comma":    `{"session_id":"s","raw":{"a":1,`,
		"after an opening": `{"session_id":"s","raw":[`,
	} {
		t.Run(name, func(t *testing.T) {
			input := good + cut + "\n" + strings.Repeat(good, 20000)
			got := readAll(t, input)
			if !strings.HasPrefix(got.err, "log.jsonl: line 2: invalid JSONL envelope") {
				t.Fatalf("err = %q", got.err)
			}
		})
	}
}

// A log appended to after a torn line: the torn line is one lost frame and
// the frames after it are read.
func TestReaderTornLineMidLog(t *testing.T) {
	input := `{"session_id":"a","seq":1}` + "\n" + `{"session_id":"a","seq":2,"raw":{"x":[1,` + "\n" +
		`{"session_id":"b","seq":1}` + "\n" + `{"session_id":"b","seq":2}` + "\n"
	r := NewReader(strings.NewReader(input), "log.jsonl")
	var got []string
	for {
		f, line, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrTornLine) {
			got = append(got, "torn@"+strconv.Itoa(line))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Clone(f.SessionID)+"@"+strconv.Itoa(line))
	}
	if strings.Join(got, " ") != "a@1 torn@2 b@3 b@4" {
		t.Errorf("got %v", got)
	}
}

// A line longer than MaxEnvelope is refused, and the buffer never grows
// past what one line may take; the rest of the line is dropped as it comes,
// and the frame after it is read.
func TestReaderLineCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 258 MiB")
	}
	huge := io.LimitReader(io.MultiReader(strings.NewReader(`{"text":"`), spaces{}), MaxEnvelope+2<<20)
	r := NewReader(io.MultiReader(huge, strings.NewReader("\n"+`{"session_id":"a"}`+"\n")), "huge")
	if _, _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "longer than") || !errors.Is(err, ErrUnreadableLine) {
		t.Fatalf("err = %v", err)
	}
	f, line, err := r.Next()
	if err != nil || f.SessionID != "a" || line != 2 {
		t.Errorf("after the long line: %q on line %d, %v", f.SessionID, line, err)
	}
	if cap(r.buf) > MaxEnvelope+readChunk {
		t.Errorf("the buffer grew to %d MiB for a line capped at %d MiB", cap(r.buf)>>20, MaxEnvelope>>20)
	}
}

// A line that cannot be a frame (it does not start with '{') is refused
// from its first bytes: an endless one (/dev/zero) is never buffered.
func TestReaderRefusesNonObjectLines(t *testing.T) {
	endless := func(prefix string, fill byte) io.Reader {
		return io.MultiReader(strings.NewReader(prefix), repeat(fill))
	}
	tests := []struct {
		name string
		in   io.Reader
		err  string
	}{
		{"zeros", endless("", 0), `log: line 1: invalid JSONL envelope: invalid character '\x00' looking for beginning of value`},
		{"garbage after a frame", endless(`{"session_id":"a"}`+"\n  ", 'x'), `log: line 2: invalid JSONL envelope: invalid character 'x' looking for beginning of value`},
		{"an endless array", endless("[", '1'), "log: line 1: invalid JSONL envelope: expected a JSON object, got an array (a line of more than 64 KiB, not read whole)"},
		{"an endless string", endless(`"`, 'a'), "log: line 1: invalid JSONL envelope: expected a JSON object, got a string"},
		{"a short array", strings.NewReader("[1,2]"), "log: line 1: invalid JSONL envelope: expected a JSON object, got an array"},
		{"blanks, then a number", endless("   \t\r\n\n  ", '7'), "log: line 3: invalid JSONL envelope: expected a JSON object, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &countingReader{r: tt.in}
			r := NewReader(in, "log")
			var err error
			for err == nil {
				_, _, err = r.Next()
			}
			if !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("err = %q, want %q", err, tt.err)
			}
			if in.n > 2*readChunk || cap(r.buf) > 2*readChunk {
				t.Errorf("read %d bytes into a buffer of %d to refuse the line", in.n, cap(r.buf))
			}
		})
	}
}

// Blanks before a frame, however many, are dropped as they come.
func TestReaderDropsLeadingBlanks(t *testing.T) {
	in := io.MultiReader(io.LimitReader(spaces{}, 8*readChunk), strings.NewReader(`{"session_id":"a"}`+"\n"))
	r := NewReader(in, "log")
	f, line, err := r.Next()
	if err != nil || f.SessionID != "a" || line != 1 || cap(r.buf) > 2*readChunk {
		t.Errorf("frame %q line %d err %v, buffer %d", f.SessionID, line, err, cap(r.buf))
	}
}

type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// repeat is an endless stream of one byte.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
