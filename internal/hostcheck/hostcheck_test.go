package hostcheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	loop, err := New("127.0.0.1:7000", nil)
	if err != nil {
		t.Fatal(err)
	}
	widened, err := New("[::1]:7000", []string{"https://App.Example.com:443", "http://host.docker.internal:3000", "null"})
	if err != nil {
		t.Fatal(err)
	}
	open, err := New("0.0.0.0:7000", []string{"https://app.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		p            *Policy
		host, origin string
		refused      string // the header refused, "" when served
	}{
		// Host: localhost, 127.0.0.0/8 and [::1], any port.
		{loop, "localhost", "", ""},
		{loop, "LocalHost:7000", "", ""},
		{loop, "127.0.0.1:7000", "", ""},
		{loop, "127.1.2.3:1", "", ""},
		{loop, "[::1]:7000", "", ""},
		{loop, "[::1]", "", ""},
		{loop, "evil.example:7000", "", "Host"},
		{loop, "evil.example", "", "Host"},
		{loop, "", "", "Host"},
		{loop, "localhost.:7000", "", "Host"},
		{loop, "localhost.evil.example", "", "Host"},
		{loop, "2130706433:7000", "", "Host"}, // 127.0.0.1 spelled as a number
		{loop, "0x7f.1", "", "Host"},
		{loop, "[127.0.0.1]:7000", "", "Host"}, // an IPv4 address is never bracketed
		{loop, "::1", "", "Host"},              // an IPv6 one always is
		{loop, "[::1]x", "", "Host"},
		{loop, "localhost:70a0", "", "Host"},
		{loop, "10.0.0.1:7000", "", "Host"},
		{loop, "[::2]:7000", "", "Host"},
		// Origin: absent passes; present, its host must be a loopback name.
		{loop, "localhost:7000", "http://localhost:6274", ""},
		{loop, "localhost:7000", "https://127.0.0.1", ""},
		{loop, "localhost:7000", "http://[::1]:3000", ""},
		{loop, "localhost:7000", "http://evil.example:7000", "Origin"},
		{loop, "localhost:7000", "null", "Origin"},
		{loop, "localhost:7000", "http://user@localhost", "Origin"},
		{loop, "localhost:7000", "localhost", "Origin"},
		{loop, "localhost:7000", "http://localhost.evil.example", "Origin"},
		// --allow-origin: the origin exactly (scheme, host, port), and its
		// host name as the Host.
		{widened, "localhost:7000", "https://app.example.com", ""},
		{widened, "localhost:7000", "https://APP.example.com:443", ""},
		{widened, "localhost:7000", "http://app.example.com", "Origin"},
		{widened, "localhost:7000", "https://app.example.com:8443", "Origin"},
		{widened, "localhost:7000", "null", ""},
		{widened, "host.docker.internal:7000", "", ""},
		{widened, "host.docker.internal:7000", "http://host.docker.internal:3000", ""},
		{widened, "host.docker.internal:7000", "http://evil.example", "Origin"},
		{widened, "evil.example:7000", "https://app.example.com", "Host"},
		// A non-loopback listener checks nothing.
		{open, "evil.example:7000", "http://evil.example", ""},
		{nil, "evil.example:7000", "http://evil.example", ""},
	}
	for _, tt := range tests {
		r := tt.p.Check(tt.host, tt.origin)
		got := ""
		if r != nil {
			got = r.Header
			want := tt.host
			if r.Header == "Origin" {
				want = tt.origin
			}
			if r.Value != want {
				t.Errorf("Host %q, Origin %q: refusal names %q", tt.host, tt.origin, r.Value)
			}
		}
		if got != tt.refused {
			t.Errorf("Host %q, Origin %q: refused %q, want %q", tt.host, tt.origin, got, tt.refused)
		}
	}
}

func TestNew(t *testing.T) {
	for listen, active := range map[string]bool{
		"127.0.0.1:7000": true, "127.0.1.1:0": true, "[::1]:7000": true, "localhost:7000": true,
		"0.0.0.0:7000": false, "[::]:7000": false, ":7000": false, "192.168.1.2:7000": false,
	} {
		p, err := New(listen, nil)
		if err != nil || p.Active() != active {
			t.Errorf("New(%q): active %v, %v; want %v", listen, p.Active(), err, active)
		}
	}
	if _, err := New("127.0.0.1", nil); err == nil {
		t.Error("a listen address without a port was taken")
	}
	for _, bad := range []string{"app.example.com", "https://app.example.com/path", "https://app.example.com?q", "https://u:p@app.example.com", "https://", "*", "https://app.example.com#x", "mailto:a@b"} {
		if _, err := New("127.0.0.1:7000", []string{bad}); err == nil || !strings.Contains(err.Error(), "--allow-origin \""+bad+"\"") {
			t.Errorf("--allow-origin %q: %v", bad, err)
		}
	}
	if _, err := New("127.0.0.1:7000", []string{"https://app.example.com/"}); err != nil {
		t.Errorf("an origin with a bare /: %v", err)
	}
}

func TestRefuse(t *testing.T) {
	p, _ := New("127.0.0.1:7000", nil)
	req := httptest.NewRequest(http.MethodPost, "http://evil.example:7000/mcp", nil)
	req.Header.Set("Origin", "http://evil.example:7000")
	r := p.CheckRequest(req)
	if r == nil || r.Header != "Host" {
		t.Fatalf("CheckRequest: %v", r)
	}
	w := httptest.NewRecorder()
	Refuse(w, r, "mcpsnoop http")
	want := "mcpsnoop http: forbidden: the Host header \"evil.example:7000\" names neither localhost, 127.0.0.0/8 nor [::1], nor an allowed origin (a guard against DNS rebinding on a loopback address; --allow-origin widens it)\n"
	if w.Code != http.StatusForbidden || w.Body.String() != want || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("%d %q %q", w.Code, w.Header(), w.Body.String())
	}
}
