package httpcapture

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
)

// On a loopback address the proxy refuses what a web page under a rebound
// name sends (a foreign Host, or a foreign Origin) with a 403 of its own:
// the target never sees it, and the log has the request (with its Host
// and Origin) and the refusal marked by_proxy. What a local client sends
// is forwarded, its Host and Origin logged.
func TestProxyDNSRebindingGuard(t *testing.T) {
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer target.Close()
	u, _ := url.Parse(target.URL + "/mcp")
	guard, err := hostcheck.New("127.0.0.1:0", []string{"https://inspector.example"})
	if err != nil {
		t.Fatal(err)
	}
	out := &memLog{}
	log := newTestHTTPLog(out, nil, 1024)
	warn := &syncBuffer{}
	proxy := NewProxy(ProxyOptions{Target: u, Log: log, Warn: warn, Guard: guard})
	front := httptest.NewServer(proxy)
	client := &http.Client{Timeout: time.Minute}
	port := front.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':'):]

	send := func(method, host, origin, body string) (int, string) {
		t.Helper()
		var rd *strings.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		var req *http.Request
		if rd != nil {
			req, _ = http.NewRequest(method, front.URL+"/mcp", rd)
		} else {
			req, _ = http.NewRequest(method, front.URL+"/mcp", nil)
		}
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	steps := []struct {
		method, host, origin, body string
		status                     int
	}{
		{"POST", "evil.example" + port, "http://evil.example" + port, init, 403}, // a rebound name
		{"POST", "127.0.0.1" + port, "http://evil.example", init, 403},           // a foreign page, by IP
		{"GET", "evil.example" + port, "", "", 403},                              // a stream: no body to log
		{"POST", "127.0.0.1" + port, "http://localhost:6274", init, 200},         // a local page
		{"POST", "localhost" + port, "", init, 200},                              // a client without Origin
		{"POST", "[::1]" + port, "https://inspector.example", init, 200},         // an allowed origin
	}
	for i, s := range steps {
		status, body := send(s.method, s.host, s.origin, s.body)
		if status != s.status {
			t.Errorf("step %d (%s Host %q Origin %q): status %d, want %d: %s", i, s.method, s.host, s.origin, status, s.status, body)
		}
		if status == 403 && !strings.HasPrefix(body, "mcpsnoop http: forbidden: the ") {
			t.Errorf("step %d: 403 body %q", i, body)
		}
	}
	if n := reached.Load(); n != 3 {
		t.Errorf("the target was reached %d times, want 3 (the refused requests never reach it)", n)
	}
	front.Close()
	proxy.Wait()
	log.Close()
	fs := withoutMeta(t, out.frames(t), target.URL)
	var got []string
	for _, f := range fs {
		line := summary(f) + " host=" + f.Host + " origin=" + f.Origin
		if f.ByProxy {
			line += " by_proxy"
		}
		got = append(got, line)
	}
	want := []string{
		`c2s ` + init + ` host=evil.example` + port + ` origin=http://evil.example` + port,
		`s2c 403 reply_to:1 host=evil.example` + port + ` origin=http://evil.example` + port + ` by_proxy`,
		`c2s ` + init + ` host=127.0.0.1` + port + ` origin=http://evil.example`,
		`s2c 403 reply_to:1 host=127.0.0.1` + port + ` origin=http://evil.example by_proxy`,
		`s2c 403 host=evil.example` + port + ` origin= by_proxy`,
		`c2s ` + init + ` host=127.0.0.1` + port + ` origin=http://localhost:6274`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}} host= origin=`,
		`c2s ` + init + ` host=localhost` + port + ` origin=`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}} host= origin=`,
		`c2s ` + init + ` host=[::1]` + port + ` origin=https://inspector.example`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}} host= origin=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One line on the warn writer, for the first refusal only.
	if w := warn.String(); strings.Count(w, "\n") != 1 || !strings.HasPrefix(w, `mcpsnoop http: refused a request (403): the Host header "evil.example`) {
		t.Errorf("warn: %q", w)
	}
}

// Without a guard (a listener that is not on loopback) nothing is refused.
func TestProxyWithoutGuard(t *testing.T) {
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	resp, _ := r.do("POST", "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.Header{"Origin": {"http://evil.example"}})
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("status %d", resp.StatusCode)
	}
	fs := r.frames()
	if len(fs) != 2 || fs[0].Origin != "http://evil.example" || fs[0].Host == "" || fs[1].ByProxy {
		t.Errorf("log:\n%s", summaries(fs))
	}
}

// The meta frame names the target's scheme, host and port, never its
// user, path or query.
func TestTargetOf(t *testing.T) {
	for in, want := range map[string]capture.HTTPTarget{
		"http://127.0.0.1:8080/mcp?token=x":     {Scheme: "http", Host: "127.0.0.1", Port: 8080},
		"https://user:pw@mcp.example.com/a/b":   {Scheme: "https", Host: "mcp.example.com", Port: 443},
		"http://[::1]/mcp":                      {Scheme: "http", Host: "::1", Port: 80},
		"https://mcp.example.com:8443/?key=abc": {Scheme: "https", Host: "mcp.example.com", Port: 8443},
	} {
		u, err := ParseTarget(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := TargetOf(u); *got != want {
			t.Errorf("%s: %+v, want %+v", in, *got, want)
		}
	}
	if TargetOf(nil) != nil {
		t.Error("TargetOf(nil) is not nil")
	}
}
