package httpcapture

import (
	"io"
	"strings"
	"testing"
)

// Only ids the server issued are remembered, as fixed-size hashes; forgotten
// sessions leave nothing behind.
func TestSessionConnsBounded(t *testing.T) {
	var s sessionConns
	huge := strings.Repeat("x", 1<<20)
	if got := s.conn(huge, "127.0.0.1:1"); got != "127.0.0.1:1" || len(s.m) != 0 {
		t.Fatalf("a made-up id was kept: %q, %d entries", got, len(s.m))
	}
	s.issued("abc", "127.0.0.1:9")
	if got := s.conn("abc", "127.0.0.1:2"); got != "127.0.0.1:9" {
		t.Errorf("issued id maps to %q", got)
	}
	for i := 0; i < 3*maxSessionConns; i++ {
		s.issued("same", "c")
		s.forget("same")
	}
	if len(s.m) != 1 || len(s.order) > 2*maxSessionConns+1 {
		t.Errorf("after churn: %d entries, order %d", len(s.m), len(s.order))
	}
	for i := 0; i < 2*maxSessionConns; i++ {
		s.issued(strings.Repeat("k", i%50)+string(rune('a'+i%26))+itoaTest(i), "c")
	}
	if len(s.m) > maxSessionConns {
		t.Errorf("%d sessions kept, cap %d", len(s.m), maxSessionConns)
	}
}

func itoaTest(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

// A request body the target did not read to its end is logged as
// truncated, never as a complete message; completing it after the response
// never waits on the client.
func TestRequestTapCutBody(t *testing.T) {
	pr, pw := io.Pipe()
	tap := &requestTap{src: pr}
	go pw.Write([]byte(`{"jsonrpc":"2.0","id":1,"meth`))
	buf := make([]byte, 64)
	if n, _ := tap.Read(buf); n == 0 {
		t.Fatal("nothing read")
	}
	done := make(chan struct{})
	go func() { tap.complete(false); close(done) }()
	<-done // would hang if complete waited for the rest of the body
	if !tap.finished || tap.eof {
		t.Errorf("finished %v eof %v", tap.finished, tap.eof)
	}
	pw.Close()
}

func TestAnswersNobody(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","error":{"code":-32001,"message":"x"},"id":null}`: true,
		`{"jsonrpc":"2.0","error":{"code":-32001,"message":"x"}}`:           true,
		`{"jsonrpc":"2.0","error":{"code":-32001,"message":"x"},"id":3}`:    false,
		`{"jsonrpc":"2.0","method":"x"}`:                                    false,
		`not json`:                                                          false,
	} {
		if got := answersNobody([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}
