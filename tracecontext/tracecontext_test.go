package tracecontext

import (
	"testing"
)

func TestParseTraceParent(t *testing.T) {
	const valid = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
	tests := []struct {
		in      string
		err     error
		traceID string
		sampled bool
	}{
		{in: valid, traceID: "0af7651916cd43dd8448eb211c80319c", sampled: true},
		{in: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00", traceID: "0af7651916cd43dd8448eb211c80319c"},
		{in: "00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01", err: ErrFormat}, // uppercase
		{in: "00-00000000000000000000000000000000-00f067aa0ba902b7-01", err: ErrTraceID},
		{in: "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", err: ErrParent},
		{in: "ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", err: ErrVersion},
		{in: valid + "-extra", err: ErrFormat}, // version 00 is exactly 55 long
		{in: "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-whatever", traceID: "0af7651916cd43dd8448eb211c80319c", sampled: true},
		{in: "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", traceID: "0af7651916cd43dd8448eb211c80319c", sampled: true},
		{in: "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01x", err: ErrFormat},
		{in: "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba9", err: ErrFormat}, // future version, too short
		{in: "0-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", err: ErrFormat},
		{in: "", err: ErrFormat},
		{in: "00-0af7651916cd43dd8448eb211c80319c_00f067aa0ba902b7-01", err: ErrFormat},
	}
	for _, tt := range tests {
		p, err := ParseTraceParent(tt.in)
		if err != tt.err {
			t.Errorf("%q: err = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && (p.TraceID != tt.traceID || (p.Flags&0x01 != 0) != tt.sampled) {
			t.Errorf("%q: got %+v", tt.in, p)
		}
	}
}

func TestPassTraceState(t *testing.T) {
	members := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ","
			}
			s += "k" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "=v"
		}
		return s
	}
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
		{"Rojo=1", true},             // not W3C-valid, but passed on untouched
		{"rojo=1,rojo=2", true},      // duplicates are the writer's business
		{"rojo=1, ,congo=2", true},   // empty members are allowed
		{" rojo=1 ,\tcongo=2", true}, // optional whitespace
		{"rojo", false},              // a member without '='
		{"rojo=1,congo", false},
		{"=1", false}, // empty key
		{"rojo=1, =2", false},
		{members(32), true},
		{members(32) + ",,", true},
		{members(33), false},
	}
	for _, tt := range tests {
		got, ok := PassTraceState(tt.in)
		if ok != tt.ok {
			t.Errorf("%q: ok = %v, want %v", tt.in, ok, tt.ok)
		}
		if ok && got != tt.in {
			t.Errorf("%q: changed to %q", tt.in, got)
		}
		if !ok && got != "" {
			t.Errorf("%q: dropped but returned %q", tt.in, got)
		}
	}
}
