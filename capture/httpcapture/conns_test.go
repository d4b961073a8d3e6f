package httpcapture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// closingBody is a server's request body: once closed (the handler
// returned), every read fails, even after its end was read.
type closingBody struct {
	r      io.Reader
	closed atomic.Bool
}

func (b *closingBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.r.Read(p)
}

func (b *closingBody) Close() error { b.closed.Store(true); return nil }

// The transport reads a request body once more after its last byte (to see
// that it is no longer than its Content-Length), which may come after the
// handler returned and the server closed the client's body. The tap says
// io.EOF again rather than pass the server's error on, which would make the
// transport drop its connection to the target.
func TestRequestTapEndIsFinal(t *testing.T) {
	src := &closingBody{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}
	tap := &requestTap{src: src}
	if _, err := io.ReadAll(tap); err != nil {
		t.Fatal(err)
	}
	src.Close()
	for range 2 {
		if n, err := tap.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Fatalf("read after the end: %d, %v; want 0, io.EOF", n, err)
		}
	}
	if !tap.finished || !tap.eof {
		t.Errorf("finished %v eof %v", tap.finished, tap.eof)
	}
}

// Bursts of concurrent calls reuse the proxy's connections to the target:
// sixteen at once, twice, take sixteen connections, not sixteen plus those
// the second burst would dial if the first one's were closed on return.
func TestProxyKeepsConnectionsToTheTarget(t *testing.T) {
	const clients = 16
	var dialed atomic.Int32
	var arrived sync.WaitGroup
	release := make(chan struct{})
	target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		arrived.Done()
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	target.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	target.Start()
	r := newProxyRigTo(t, target)
	r.client.Transport.(*http.Transport).MaxIdleConnsPerHost = clients
	for burst := range 2 {
		arrived.Add(clients)
		release = make(chan struct{})
		errs := make(chan error, clients)
		for i := range clients {
			go func() {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}`, i)
				resp, err := r.client.Post(r.front.URL+"/mcp", "application/json", strings.NewReader(body))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				errs <- err
			}()
		}
		arrived.Wait() // all sixteen are in flight at once
		close(release)
		for range clients {
			if err := <-errs; err != nil {
				t.Fatalf("burst %d: %v", burst, err)
			}
		}
	}
	if n := dialed.Load(); n != clients {
		t.Errorf("the proxy opened %d connections to the target for two bursts of %d calls, want %d", n, clients, clients)
	}
}

// A body with a Content-Length reaches the client chunk by chunk as the
// target sends it, headers with the first: a client that answers the first
// chunk before the target sends the second is not left waiting.
func TestProxyForwardsEachChunkOfALengthBody(t *testing.T) {
	first, second := `{"jsonrpc":"2.0","id":1,`, `"result":{}}`
	got := make(chan struct{})
	var held atomic.Bool
	target := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(first)+len(second)))
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			held.Store(true) // the client never saw the first chunk
		}
		io.WriteString(w, second)
	})
	r := newProxyRig(t, target)
	resp, err := r.client.Post(r.front.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != int64(len(first)+len(second)) {
		t.Fatalf("Content-Length %d", resp.ContentLength)
	}
	br := bufio.NewReader(resp.Body)
	buf := make([]byte, len(first))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != first {
		t.Fatalf("first chunk %q: %v", buf, err)
	}
	if held.Load() {
		t.Fatal("the first chunk came only with the second: the proxy held it")
	}
	close(got)
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != second {
		t.Fatalf("rest %q: %v", rest, err)
	}
	wantFrames(t, r.frames(),
		`c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`)
}

// A writer that cannot flush (not an http.Server's) is written through.
func TestFlushWriterWithoutFlusher(t *testing.T) {
	var w plainWriter
	fw := &flushWriter{ResponseWriter: &w, rc: http.NewResponseController(&w)}
	if n, err := fw.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if err := fw.FlushError(); err != nil || errors.Is(err, http.ErrNotSupported) {
		t.Fatalf("FlushError: %v", err)
	}
	if w.String() != "abc" {
		t.Fatalf("written %q", w.String())
	}
}

type plainWriter struct{ strings.Builder }

func (w *plainWriter) Header() http.Header { return http.Header{} }
func (w *plainWriter) WriteHeader(int)     {}
