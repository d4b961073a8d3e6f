package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// memLog is an in-memory log file; block, when set, holds every write until
// it is closed, and entered is told when a write is waiting.
type memLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	fail    error
	block   chan struct{}
	entered chan struct{}
	closed  bool
}

func (m *memLog) Write(p []byte) (int, error) {
	if m.block != nil {
		select {
		case m.entered <- struct{}{}:
		default:
		}
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	return m.buf.Write(p)
}

func (m *memLog) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

func (m *memLog) frames(t *testing.T) []Frame {
	t.Helper()
	m.mu.Lock()
	data := bytes.Clone(m.buf.Bytes())
	m.mu.Unlock()
	r := NewReader(bytes.NewReader(data), "log")
	var out []Frame
	for {
		f, _, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		out = append(out, f.Clone())
	}
}

func newTestLog(out io.WriteCloser, warn io.Writer) *LogWriter {
	return NewLogWriter(out, LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "test.jsonl", Warn: warn})
}

func add(w *LogWriter, dir, line string) {
	o := op{kind: opAdd, data: []byte(line)}
	if raw, ok := CompactJSON(o.data, &bytes.Buffer{}); ok {
		o.data, o.json = raw, true
	}
	w.apply(dir, []op{o})
}

// A line begun before an answer to it is logged before the answer, even
// when the answer is complete first.
func TestLogWriterKeepsWireOrder(t *testing.T) {
	out := &memLog{}
	w := newTestLog(out, nil)
	w.Meta(SessionMeta{Command: []string{"srv"}})
	begin := []op{{kind: opBegin}}
	w.apply(ClientToServer, begin)
	add(w, ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	w.apply(ClientToServer, []op{{kind: opFinish, t: begin[0].t, data: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), json: true}})
	add(w, Stderr, "log <line> & more")
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	if !out.closed {
		t.Error("the file was not closed")
	}
	frames := out.frames(t)
	want := []struct {
		dir, body string
	}{
		{Meta, `{"command":["srv"]}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{Stderr, "log <line> & more"},
	}
	if len(frames) != len(want) {
		t.Fatalf("%d frames: %+v", len(frames), frames)
	}
	for i, f := range frames {
		body := string(f.Raw)
		if f.Direction == Stderr {
			body = f.Text
		}
		if f.Seq != uint64(i+1) || f.Direction != want[i].dir || body != want[i].body || f.SessionID != "srv-1-aaaaaaaaaaaa" || f.ServerLabel != "srv" || f.Transport != TransportStdio {
			t.Errorf("frame %d = %+v", i, f)
		}
		if i > 0 && f.TS.Before(frames[i-1].TS) {
			t.Errorf("frame %d is timed before the one before it", i)
		}
	}
}

// A full queue drops frames from the log, leaving their seq unused, and
// says so once; the writer and the caller never wait for each other.
func TestLogWriterDropsWhenQueueIsFull(t *testing.T) {
	out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	var warn bytes.Buffer
	var warnMu sync.Mutex
	w := newTestLog(out, writerFunc(func(p []byte) (int, error) {
		warnMu.Lock()
		defer warnMu.Unlock()
		return warn.Write(p)
	}))
	add(w, ClientToServer, `{"n":0}`)
	<-out.entered // the writer is stuck in a write
	const extra = 5
	done := make(chan struct{})
	go func() {
		for i := range QueueFrames + extra {
			add(w, ClientToServer, `{"n":`+strconv.Itoa(i+1)+`}`)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("adding frames blocked on a stuck writer")
	}
	if lost := w.Lost(); lost != extra {
		t.Fatalf("lost %d, want %d", lost, extra)
	}
	close(out.block)
	if lost := w.Close(); lost != extra {
		t.Fatalf("lost %d after close", lost)
	}
	frames := out.frames(t)
	// Every frame the queue took, then the closing frame: the drops came
	// last, so only the closing frame's seq shows them.
	if len(frames) != QueueFrames+2 || frames[len(frames)-2].Seq != QueueFrames+1 {
		t.Fatalf("%d frames, last seq %d", len(frames), frames[len(frames)-2].Seq)
	}
	closing := frames[len(frames)-1]
	if closing.Direction != Meta || closing.Seq != QueueFrames+extra+2 || closing.LastSeq != QueueFrames+extra+1 || closing.Dropped != extra || len(closing.Raw) != 0 {
		t.Errorf("closing frame %+v", closing)
	}
	if missing := seqGaps(frames); missing != extra {
		t.Errorf("the seq gaps count %d missing frames, want %d", missing, extra)
	}
	warnMu.Lock()
	defer warnMu.Unlock()
	if strings.Count(warn.String(), "warning:") != 1 || !strings.Contains(warn.String(), "the write queue is full") {
		t.Errorf("warning: %q", warn.String())
	}
}

// A failing file costs the log, once warned about, and nothing else.
func TestLogWriterFileFails(t *testing.T) {
	out := &memLog{fail: errors.New("no space left on device")}
	var warn bytes.Buffer
	w := newTestLog(out, &warn)
	for range 3 {
		add(w, ClientToServer, `{}`)
	}
	time.Sleep(20 * time.Millisecond) // let the writer fail once
	for range 2 {
		add(w, ServerToClient, `{}`)
	}
	if lost := w.Close(); lost != 5 {
		t.Fatalf("lost %d, want 5", lost)
	}
	if strings.Count(warn.String(), "warning:") != 1 || !strings.Contains(warn.String(), "no space left on device") {
		t.Errorf("warning: %q", warn.String())
	}
}

// A line still open when the log closes is lost (its seq stays unused);
// the lines after it are written.
func TestLogWriterCloseWithOpenLine(t *testing.T) {
	out := &memLog{}
	w := newTestLog(out, nil)
	add(w, ClientToServer, `{"a":1}`)
	w.apply(ClientToServer, []op{{kind: opBegin}})
	add(w, ServerToClient, `{"b":2}`)
	if lost := w.Close(); lost != 1 {
		t.Fatalf("lost %d", lost)
	}
	frames := out.frames(t)
	if len(frames) != 3 || frames[0].Seq != 1 || frames[1].Seq != 3 || frames[2].Seq != 4 || frames[2].Dropped != 1 || frames[2].LastSeq != 3 {
		t.Fatalf("frames %+v", frames)
	}
	add(w, ClientToServer, `{}`) // after Close: ignored, no panic
}

// The hand-written envelope is byte for byte what encoding/json writes for
// the same Frame with HTML escaping off.
func TestFrameEncoderMatchesEncodingJSON(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("", -5*3600-1800)}
	texts := []string{"", "plain", "<b>&amp;</b>", "tab\there\r\nnl", "\x00\x01\x1f\x7f", "\u2028\u2029", "bad \xff\xfe utf8", "é😀", `quote " and \ backslash`}
	for i, text := range texts {
		for j, loc := range zones {
			f := Frame{
				SessionID: `we"ird-1-aaaaaaaaaaaa`, ServerLabel: "lab<el>é", Seq: uint64(i*10 + j + 1),
				TS:        time.Date(2026, 11, 29, 10, 43, 34, (i*123456789)%1_000_000_000, loc),
				Direction: []string{ClientToServer, ServerToClient, Stderr, Meta}[i%4], Transport: TransportStdio,
				Text: text, Truncated: i%2 == 0, Redacted: j == 1, RedactionSkipped: i%4 == 1,
			}
			if i%3 == 0 {
				f.Raw = json.RawMessage(`{"a":"<&>","b":[1,2.5e3,null,true],"c":"\u00e9\u2028"}`)
			}
			fe := newFrameEncoder(f.SessionID, f.ServerLabel)
			if !fe.handles(&f) {
				t.Fatalf("encoder does not handle %+v", f)
			}
			got := fe.appendFrame(nil, &f)
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(&f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("got  %s\nwant %s", got, want.Bytes())
			}
		}
	}
}

// HTTP frames and closing frames too: every field, in order, omitempty.
func TestFrameEncoderMatchesEncodingJSONEveryField(t *testing.T) {
	base := Frame{SessionID: "h-1-aaaaaaaaaaaa", ServerLabel: "127.0.0.1:8080", Seq: 7,
		TS: time.Date(2026, 11, 29, 10, 43, 34, 5000, time.UTC), Direction: ServerToClient, Transport: TransportHTTP}
	params := []ParamHeader{{Name: "Mcp-Param-A", Value: "1"}, {Name: "Mcp-Param-B", Value: "x\ty", Redacted: true}}
	frames := []Frame{
		{McpMethod: "tools/call", McpName: "wé\"ird<>", McpProtocolVersion: "2026-07-28", Batch: true, ConnID: "127.0.0.1:5555",
			McpParamHeaders: params, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1}`)},
		{Status: 401, AuthChallenge: `Bearer realm="mcp", error="invalid_token"`, ContentType: "application/json; charset=utf-8",
			ReplyTo: json.RawMessage(`"abc"`), Truncated: true, Text: "{\"partial"},
		{Status: 202, Accept: "application/json, text/event-stream", Origin: "http://localhost:3000", ReplyTo: json.RawMessage(` 17 `)},
		{Status: -1, ReplyTo: json.RawMessage(`{"a" : [1, 2]}`), Redacted: true, RedactionSkipped: true},
		{Direction: Meta, LastSeq: 41, Dropped: 3},
		{Direction: Meta, Raw: json.RawMessage(`{"command":["srv"]}`), Unreserved: true},
		{McpParamHeaders: []ParamHeader{}, ReplyTo: json.RawMessage{}, Raw: json.RawMessage{}},
	}
	for i, d := range frames {
		f := d
		f.SessionID, f.ServerLabel, f.Seq, f.TS, f.Transport = base.SessionID, base.ServerLabel, base.Seq+uint64(i), base.TS, base.Transport
		if f.Direction == "" {
			f.Direction = base.Direction
		}
		fe := newFrameEncoder(f.SessionID, f.ServerLabel)
		if !fe.handles(&f) {
			t.Fatalf("encoder does not handle %+v", f)
		}
		got := fe.appendFrame(nil, &f)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("frame %d:\ngot  %s\nwant %s", i, got, want.Bytes())
		}
	}
	// A reply_to that is no JSON is left to encoding/json (which refuses it).
	f := base
	f.ReplyTo = json.RawMessage(`{`)
	if newFrameEncoder(f.SessionID, f.ServerLabel).handles(&f) {
		t.Error("the encoder takes a reply_to that is not JSON")
	}
}

func TestCompactJSON(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{` { "a" : [ 1 , 2 ] , "b" : "x y\"  " } `, `{"a":[1,2],"b":"x y\"  "}`, true},
		{"{\"a\":\"\\\\\"}\t", `{"a":"\\"}`, true},
		{"[1,\n2]", `[1,2]`, true},
		{`"\u2028 <&>"`, `"\u2028 <&>"`, true},
		{"   ", "", false},
		{`{"a":1}{"b":2}`, "", false},
		{"{\"a\":\"\xff\"}", "", false},
		{`{"a":01}`, "", false},
		{"not json", "", false},
	}
	for _, tt := range tests {
		got, ok := CompactJSON([]byte(tt.in), &bytes.Buffer{})
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("CompactJSON(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzCompactJSON holds the writer's one-pass check to utf8.Valid plus
// json.Valid, and its compaction to json.Compact.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,-0,true,null,"x\u00e9\n"]}`, ` [ 1 , { } ] `, `"\ud800"`, "\"\xff\"", "\"a\x01\"", `{"a" 1}`, "\"é\"", `"\\\"\\"`, "{\"k\":\"" + strings.Repeat("abcdefgh", 9) + "\u00e9\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := CompactJSON(data, &bytes.Buffer{})
		want := json.Valid(data) && utf8.Valid(data)
		if ok != want {
			t.Fatalf("CompactJSON(%q) ok=%v, want %v", data, ok, want)
		}
		if ok {
			var buf bytes.Buffer
			if err := json.Compact(&buf, data); err != nil || !bytes.Equal(buf.Bytes(), got) {
				t.Fatalf("CompactJSON(%q) = %q, json.Compact gives %q", data, got, buf.Bytes())
			}
		}
	})
}

// seqGaps counts missing frames the way check does (check.md 3.8): the
// gaps in seq.
func seqGaps(frames []Frame) int {
	var last uint64
	missing := 0
	for _, f := range frames {
		if f.Seq > last {
			missing += int(f.Seq - last - 1)
			last = f.Seq
		}
	}
	return missing
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A text whose escaped form would take more than maxEscapedText (a line of
// control characters takes six bytes a byte) is logged cut to what fits,
// marked truncated: no log line is much past twice MaxLogLine.
func TestLogWriterBoundsEscapedText(t *testing.T) {
	out := &memLog{}
	w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "p.jsonl"})
	junk := bytes.Repeat([]byte("j\x00"), MaxLogLine/2)
	w.apply(Stderr, []op{{kind: opAdd, data: junk}, {kind: opAdd, data: []byte("after")}})
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	lines := bytes.Split(bytes.TrimSuffix(out.buf.Bytes(), []byte{'\n'}), []byte{'\n'})
	frames := out.frames(t)
	if len(frames) != 2 || !frames[0].Truncated || !strings.HasPrefix(string(junk), frames[0].Text) || frames[1].Text != "after" {
		t.Fatalf("%d frames: truncated %v, text %d bytes %.20q, then %.20q", len(frames), frames[0].Truncated, len(frames[0].Text), frames[0].Text, frames[len(frames)-1].Text)
	}
	if n := len(lines[0]); n > maxEscapedText+1<<10 || n < maxEscapedText-16 {
		t.Errorf("the line takes %d bytes, want about %d", n, maxEscapedText)
	}
}
