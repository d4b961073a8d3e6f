package stdio

import (
	"bytes"
	"errors"
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
	pump(src, dst, w.Lines(capture.ServerToClient))
	w.Close()
	if dst.writes != 1 {
		t.Errorf("%d writes to a failed destination", dst.writes)
	}
	if n := len(out.frames(t)); n != 1000 {
		t.Errorf("%d frames logged, want 1000", n)
	}
}

// Without a log the pump forwards every byte unchanged.
func TestPumpForwardsExactly(t *testing.T) {
	stream := []byte("a\r\n\xff\xfe\n\n{\"x\": 1}")
	var dst bytes.Buffer
	pump(&smallReader{data: stream, n: 3}, &dst, nil)
	if !bytes.Equal(dst.Bytes(), stream) {
		t.Fatalf("forwarded %q", dst.Bytes())
	}
}
