package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

type failWriter struct{ writes int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.writes++
	return 0, errors.New("broken pipe")
}

type smallReader struct {
	data []byte
	n    int
}

func (r *smallReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("EOF-ish")
	}
	n := min(r.n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// When the peer to forward to is gone, the pump keeps reading (so the
// other peer never blocks) and logging.
func TestPumpKeepsReadingWhenDestinationFails(t *testing.T) {
	out := &memLog{}
	w := newTestLog(out, nil)
	stream := strings.Repeat(`{"jsonrpc":"2.0","method":"x"}`+"\n", 1000)
	src := &smallReader{data: []byte(stream), n: 100}
	dst := &failWriter{}
	pump(src, dst, w.Lines(capture.ServerToClient), nil, nil)
	w.Close()
	if dst.writes != 1 {
		t.Errorf("%d writes to a failed destination", dst.writes)
	}
	if n := len(out.frames(t)); n != 1000 {
		t.Errorf("%d frames logged, want 1000", n)
	}
}

// The pump forwards every byte unchanged, line endings included, with the
// log on or off; the log strips the terminator of each line it records.
func TestPumpForwardsExactly(t *testing.T) {
	stream := []byte("a\r\n\xff\xfe\n\n{\"x\": 1}\r\n\r\nlast")
	for _, logged := range []bool{false, true} {
		for _, n := range []int{1, 3, 1 << 20} {
			var dst bytes.Buffer
			out := &memLog{}
			var l *capture.LineSplitter
			var w *capture.LogWriter
			if logged {
				w = newTestLog(out, nil)
				l = w.Lines(capture.ServerToClient)
			}
			pump(&smallReader{data: bytes.Clone(stream), n: n}, &dst, l, nil, nil)
			if !bytes.Equal(dst.Bytes(), stream) {
				t.Fatalf("log %v, reads of %d: forwarded %q", logged, n, dst.Bytes())
			}
			if !logged {
				continue
			}
			w.Close()
			var got []string
			for _, f := range out.frames(t) {
				got = append(got, f.Text+string(f.Raw))
			}
			if want := []string{"a", "\ufffd\ufffd", `{"x":1}`, "last"}; !slices.Equal(got, want) {
				t.Errorf("reads of %d: logged %q, want %q", n, got, want)
			}
		}
	}
}

// answerer is a server that answers each request the moment its bytes
// arrive, before the pump gets to do anything else: its answer is observed
// (numbered) at once, as a real server's can be.
type answerer struct {
	answers *capture.LineSplitter
	buf     []byte
}

func (a *answerer) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	for {
		i := bytes.IndexByte(a.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		id := strings.TrimSuffix(strings.TrimPrefix(string(a.buf[:i]), `{"jsonrpc":"2.0","id":`), `,"method":"ping"}`)
		a.buf = a.buf[i+1:]
		answer := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n")
		chunk := a.answers.Buffer(len(answer))
		copy(chunk, answer)
		a.answers.Number(chunk)
		a.answers.Fill()
	}
}

// Forward first, but number first: a request takes its place in the log
// before its bytes reach the server, so an answer, however quick, is
// always logged after it.
func TestPumpNumbersBeforeForwarding(t *testing.T) {
	for _, n := range []int{7, 1 << 20} {
		t.Run(fmt.Sprintf("reads of %d", n), func(t *testing.T) { testPumpNumbersBeforeForwarding(t, n) })
	}
}

func testPumpNumbersBeforeForwarding(t *testing.T, n int) {
	out := &memLog{}
	w := newTestLog(out, nil)
	var stream strings.Builder
	for id := range 50 {
		fmt.Fprintf(&stream, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
	}
	srv := &answerer{answers: w.Lines(capture.ServerToClient)}
	pump(&smallReader{data: []byte(stream.String()), n: n}, srv, w.Lines(capture.ClientToServer), nil, nil)
	w.Close()
	seen := map[string]bool{}
	frames := out.frames(t)
	for _, f := range frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(f.Raw, &m)
		if m.Method != "" {
			seen[string(m.ID)] = true
		} else if !seen[string(m.ID)] {
			t.Fatalf("answer to %s logged (seq %d) before its request", m.ID, f.Seq)
		}
	}
	if len(frames) != 100 {
		t.Errorf("%d frames, want 100", len(frames))
	}
}

// A client that cannot be written to any more is reported once; what the
// server sends after that is drained but not logged, and a line the failed
// chunk left open is logged as far as it got, marked truncated.
func TestPumpClientGone(t *testing.T) {
	out := &memLog{}
	w := newTestLog(out, nil)
	dst := &failAfter{ok: 1}
	var reasons []string
	stream := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":3,` + "\n" + strings.Repeat(`{"jsonrpc":"2.0","method":"x"}`+"\n", 100)
	src := &smallReader{data: []byte(stream), n: 40}
	pump(src, dst, w.Lines(capture.ServerToClient), func(err error) { reasons = append(reasons, err.Error()) }, nil)
	w.Close()
	if len(src.data) != 0 {
		t.Errorf("%d bytes left unread", len(src.data))
	}
	if len(reasons) != 1 || reasons[0] != "broken pipe" {
		t.Errorf("gone reported %q", reasons)
	}
	// Reads of 40 bytes: the first forwards line 1 and the start of line 2;
	// the second, which fails, ends line 2 and starts line 3.
	var got []string
	for _, f := range out.frames(t) {
		got = append(got, fmt.Sprintf("%s%s %v", f.Raw, f.Text, f.Truncated))
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"result":{}} false`, `{"jsonrpc":"2.0","id":2,"result":{}} false`, `{"json true`}
	if !slices.Equal(got, want) {
		t.Errorf("logged %q, want %q", got, want)
	}
}

// failAfter takes ok writes, then fails every one.
type failAfter struct{ ok int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.ok == 0 {
		return 0, errors.New("broken pipe")
	}
	f.ok--
	return len(p), nil
}
