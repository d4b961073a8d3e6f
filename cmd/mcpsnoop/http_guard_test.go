//go:build unix

package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// mcpsnoop http on a loopback address refuses what a web page under a
// rebound name sends, before the server sees it; --allow-origin widens the
// guard; on another address there is none. The log starts with the
// target (no user, path or query) and holds each request's Host and
// Origin, and the refusal marked by_proxy.
func TestHTTPCommandDNSRebindingGuard(t *testing.T) {
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer target.Close()
	targetURL := strings.Replace(target.URL, "http://", "http://user:pAsSwOrD@", 1) + "/mcp?token=qUeRy"
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	post := func(addr, host, origin string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	t.Run("loopback", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("MCPSNOOP_HOME", home)
		reached.Store(0)
		h := startHTTP(t, "--target", targetURL, "--listen", "127.0.0.1:0", "--allow-origin", "https://inspector.example")
		_, port, _ := net.SplitHostPort(h.addr)
		if code, body := post(h.addr, "evil.example:"+port, "http://evil.example:"+port); code != 403 || !strings.Contains(body, `the Host header "evil.example:`+port+`"`) {
			t.Errorf("a rebound name: %d %q", code, body)
		}
		if code, _ := post(h.addr, h.addr, "http://evil.example"); code != 403 {
			t.Errorf("a foreign Origin: %d", code)
		}
		if code, _ := post(h.addr, h.addr, ""); code != 200 {
			t.Errorf("no Origin: %d", code)
		}
		if code, _ := post(h.addr, "localhost:"+port, "https://inspector.example"); code != 200 {
			t.Errorf("an allowed Origin: %d", code)
		}
		if code := h.stop(t); code != 0 {
			t.Fatalf("exit %d:\n%s", code, h.stderr.String())
		}
		if n := reached.Load(); n != 2 {
			t.Errorf("the server saw %d requests, want 2", n)
		}
		if !strings.Contains(h.stderr.String(), "mcpsnoop http: refused a request (403): the Host header \"evil.example:"+port+"\"") ||
			strings.Count(h.stderr.String(), "refused a request") != 1 {
			t.Errorf("stderr:\n%s", h.stderr.String())
		}

		all := httpLogAll(t, home)
		tgt, frames := httpMeta(t, all)
		host, tport, _ := net.SplitHostPort(strings.TrimPrefix(target.URL, "http://"))
		if tgt.Scheme != "http" || tgt.Host != host || tgt.Port == 0 || tport != strconv.Itoa(tgt.Port) {
			t.Errorf("meta target %+v, want http %s %s", tgt, host, tport)
		}
		data, _ := os.ReadFile(sessionLog(t, home))
		for _, secret := range []string{"pAsSwOrD", "qUeRy", "user"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("the log holds %q from the target URL", secret)
			}
		}
		var got []string
		for _, f := range frames {
			line := f.Direction + " host=" + f.Host + " origin=" + f.Origin
			if f.Status != 0 {
				line += " " + strconv.Itoa(f.Status)
			}
			if f.ByProxy {
				line += " by_proxy"
			}
			got = append(got, line)
		}
		want := []string{
			"c2s host=evil.example:" + port + " origin=http://evil.example:" + port,
			"s2c host=evil.example:" + port + " origin=http://evil.example:" + port + " 403 by_proxy",
			"c2s host=" + h.addr + " origin=http://evil.example",
			"s2c host=" + h.addr + " origin=http://evil.example 403 by_proxy",
			"c2s host=" + h.addr + " origin=",
			"s2c host= origin= 200",
			"c2s host=localhost:" + port + " origin=https://inspector.example",
			"s2c host= origin= 200",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("not loopback", func(t *testing.T) {
		t.Setenv("MCPSNOOP_HOME", t.TempDir())
		reached.Store(0)
		h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "0.0.0.0:0", "--allow-origin", "https://inspector.example")
		_, port, _ := net.SplitHostPort(h.addr)
		if code, _ := post("127.0.0.1:"+port, "evil.example:"+port, "http://evil.example"); code != 200 {
			t.Errorf("status %d", code)
		}
		if code := h.stop(t); code != 0 {
			t.Fatalf("exit %d:\n%s", code, h.stderr.String())
		}
		if !strings.Contains(h.stderr.String(), "mcpsnoop http: warning: --allow-origin does nothing here: "+h.addr+" is not a loopback address") {
			t.Errorf("stderr:\n%s", h.stderr.String())
		}
	})

	t.Run("bad --allow-origin", func(t *testing.T) {
		t.Setenv("MCPSNOOP_HOME", t.TempDir())
		var stdout, stderr bytes.Buffer
		code := run([]string{"http", "--target", target.URL, "--listen", "127.0.0.1:0", "--allow-origin", "https://a.example/path"}, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || stderr.String() != "mcpsnoop http: --allow-origin \"https://a.example/path\": want an origin as a browser sends it, scheme://host[:port] (no path, query or user), or null\n" {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	})
}
