package httpcapture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
)

// With the log on a disk that fills up, every byte still reaches the
// client, and the log counts exactly what it lost: the frames it holds plus
// the ones counted lost are all the proxy saw, each lost frame is a gap in
// seq, and the closing frame, in the room set aside for it, says so too.
func TestProxyLogOnFullDisk(t *testing.T) {
	const calls = 1000
	pad := strings.Repeat("z", 1000)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id := strings.TrimSuffix(strings.SplitN(string(body), `"id":`, 2)[1], `,"method":"ping"}`)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"pad":"%s"}}`, id, pad)
	}))
	defer target.Close()
	u, _ := url.Parse(target.URL)
	disk := capturetest.NewDisk(512 << 10)
	var warn syncBuffer
	log := NewLog(disk.Output(), LogOptions{SessionID: "full-1-aaaaaaaaaaaa", Label: "full", Path: "full.jsonl", Warn: &warn})
	proxy := NewProxy(ProxyOptions{Target: u, Log: log, Warn: &warn})
	front := httptest.NewServer(proxy)
	client := &http.Client{Timeout: time.Minute}
	for i := range calls {
		resp, err := client.Post(front.URL, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"pad":"%s"}}`, i, pad); string(got) != want {
			t.Fatalf("call %d: the client got %.80q", i, got)
		}
	}
	front.Close()
	proxy.Wait()
	lost := log.Close()

	r := capture.NewReader(bytes.NewReader(disk.Bytes()), "full.jsonl")
	var frames []capture.Frame
	for {
		f, _, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the log does not read back whole: %v", err)
		}
		frames = append(frames, f.Clone())
	}
	closing := frames[len(frames)-1]
	frames = withoutMeta(t, frames, target.URL)
	logged := len(frames) - 1
	last := uint64(1) // the meta frame
	gaps := 0
	for _, f := range frames {
		if f.Seq > last {
			gaps += int(f.Seq - last - 1)
			last = f.Seq
		}
	}
	if lost == 0 || logged+int(lost) != 2*calls {
		t.Errorf("%d frames logged and %d counted lost, of %d", logged, lost, 2*calls)
	}
	if closing.Direction != capture.Meta || closing.Dropped != lost || closing.LastSeq != 2*calls+1 || gaps != int(lost) {
		t.Errorf("closing frame %+v; seq gaps %d, lost %d", closing, gaps, lost)
	}
	if !strings.Contains(warn.String(), "no space left on device") {
		t.Errorf("warning: %q", warn.String())
	}
}
