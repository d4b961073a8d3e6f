package httpcapture

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The proxy's cost, as ../shared/bench/httpbench measures the built binary
// (which stays the reference for the figures), in process so that
// -cpuprofile and -trace see it: tools/call round trips with a 2 KB result
// through a plain net/http/httputil reverse proxy (the floor) and through
// ours with its log written to a file, to the same loopback target.
//
//	go test ./capture/httpcapture -run '^$' -bench Proxy -benchtime 3000x
//
// Each reports ns/op (a sequential round trip, or one request of 16
// concurrent clients) and p50-ns (sequential).

var benchResult = strings.Repeat("x", 2048)

// benchTarget answers every POST with a tools/call result of 2 KB.
func benchTarget(tb testing.TB) *url.URL {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := "1"
		if i := bytes.Index(b, []byte(`"id":`)); i >= 0 {
			k := i + 5
			for k < len(b) && b[k] != ',' && b[k] != '}' {
				k++
			}
			id = string(b[i+5 : k])
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, benchResult)
	})}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	u, _ := url.Parse("http://" + ln.Addr().String() + "/mcp")
	return u
}

// serveBench serves h on loopback and returns its /mcp URL.
func serveBench(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// benchProxies are the proxies compared: the plain reverse proxy as
// httpbench sets it up, and ours with a log file.
func benchProxies(tb testing.TB, target *url.URL) map[string]string {
	tb.Helper()
	base := *target
	base.Path = ""
	plain := httputil.NewSingleHostReverseProxy(&base)
	plain.Transport = &http.Transport{MaxIdleConnsPerHost: 64}
	f, err := os.Create(filepath.Join(tb.TempDir(), "bench.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	log := NewLog(f, LogOptions{SessionID: "bench-1-aaaaaaaaaaaa", Label: "bench", Path: f.Name()})
	tb.Cleanup(func() {
		if lost := log.Close(); lost > 0 {
			tb.Errorf("%d frames lost", lost)
		}
	})
	ours := NewProxy(ProxyOptions{Target: target, Log: log})
	return map[string]string{"plain": serveBench(tb, plain), "ours": serveBench(tb, ours)}
}

var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func benchCall(u string, id int64) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`, id, benchResult[:512])
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := benchClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func BenchmarkProxyRoundTrip(b *testing.B) {
	target := benchTarget(b)
	proxies := benchProxies(b, target)
	for _, name := range []string{"plain", "ours"} {
		u := proxies[name]
		b.Run(name, func(b *testing.B) {
			for i := range 200 {
				if err := benchCall(u, int64(i)); err != nil {
					b.Fatal(err)
				}
			}
			d := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				t := time.Now()
				if err := benchCall(u, int64(i)); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t))
			}
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			b.ReportMetric(float64(d[len(d)/2]), "p50-ns")
		})
	}
}

func BenchmarkProxyConcurrent(b *testing.B) {
	target := benchTarget(b)
	proxies := benchProxies(b, target)
	for _, name := range []string{"plain", "ours"} {
		u := proxies[name]
		b.Run(name, func(b *testing.B) {
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						if err := benchCall(u, i); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
