package httpcapture

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

type parsedEvent struct {
	data      string
	truncated bool
}

// parseSSE runs stream through a parser in chunks of size n (0: whole).
func parseSSE(stream string, n int, clean bool) []parsedEvent {
	var got []parsedEvent
	p := newSSEParser(func(data []byte, truncated bool) {
		got = append(got, parsedEvent{string(data), truncated})
	}, nil)
	if n <= 0 {
		n = len(stream) + 1
	}
	for len(stream) > 0 {
		k := min(n, len(stream))
		p.feed([]byte(stream[:k]))
		stream = stream[k:]
	}
	p.end(clean)
	return got
}

func TestSSEParser(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stream string
		want   []parsedEvent
	}{
		{"one event", "event: message\ndata: {\"a\":1}\n\n", []parsedEvent{{`{"a":1}`, false}}},
		{"id and retry ignored", "id: 7\nretry: 10\ndata: x\n\n", []parsedEvent{{"x", false}}},
		{"comments ignored", ": ok\n\n: ping\ndata: x\n\n", []parsedEvent{{"x", false}}},
		{"data lines joined", "data: a\ndata: b\ndata:c\n\n", []parsedEvent{{"a\nb\nc", false}}},
		{"one space removed, not two", "data:  x\n\n", []parsedEvent{{" x", false}}},
		{"CRLF", "data: a\r\ndata: b\r\n\r\n", []parsedEvent{{"a\nb", false}}},
		{"CR alone", "data: a\rdata: b\r\rdata: c\n\n", []parsedEvent{{"a\nb", false}, {"c", false}}},
		{"lone data field", "data\ndata: x\n\n", []parsedEvent{{"\nx", false}}},
		{"no data, no event", "event: ping\n\nid: 1\n\n", nil},
		{"empty data is an event", "data:\n\n", []parsedEvent{{"", false}}},
		{"other fields that start like data", "datum: x\ndata2: y\ndata: z\n\n", []parsedEvent{{"z", false}}},
		{"byte-order mark", "\xef\xbb\xbfdata: x\n\n", []parsedEvent{{"x", false}}},
		{"trailing event flushed at a clean end", "data: a\n\ndata: b", []parsedEvent{{"a", false}, {"b", false}}},
		{"two events", "data: 1\n\ndata: 2\n\n", []parsedEvent{{"1", false}, {"2", false}}},
	} {
		for _, n := range []int{0, 1, 2, 3, 5} {
			if got := parseSSE(tt.stream, n, true); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s (chunks of %d): got %+v, want %+v", tt.name, n, got, tt.want)
			}
		}
	}
}

// A stream cut by the proxy (the client left) drops the event in progress.
func TestSSEParserCutStream(t *testing.T) {
	if got := parseSSE("data: a\n\ndata: {\"half", 4, false); !reflect.DeepEqual(got, []parsedEvent{{"a", false}}) {
		t.Errorf("got %+v", got)
	}
}

// An event longer than the log keeps is dispatched cut, and the parser's
// memory stays at the cap.
func TestSSEParserCapsAnEvent(t *testing.T) {
	big := strings.Repeat("x", capture.MaxLogLine+100)
	var got []parsedEvent
	p := newSSEParser(func(data []byte, truncated bool) {
		if !truncated {
			got = append(got, parsedEvent{data: string(data)})
			return
		}
		got = append(got, parsedEvent{data: string(data[:10]), truncated: true})
		if len(data) != capture.MaxLogLine {
			t.Errorf("kept %d bytes", len(data))
		}
	}, nil)
	p.feed([]byte("data: "))
	for i := 0; i < len(big); i += 1 << 20 {
		p.feed([]byte(big[i:min(i+1<<20, len(big))]))
		if cap(p.cp.buf) > 2*capture.MaxLogLine {
			t.Fatalf("buffer grew to %d", cap(p.cp.buf))
		}
	}
	p.feed([]byte("\n\ndata: next\n\n"))
	p.end(true)
	if len(got) != 2 || !got[0].truncated || got[0].data != "xxxxxxxxxx" || got[1] != (parsedEvent{data: "next"}) {
		t.Fatalf("got %+v", got)
	}
}
