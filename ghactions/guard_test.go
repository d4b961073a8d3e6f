package ghactions

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

var guardLine = regexp.MustCompile(`^::stop-commands::([0-9a-f]{32})\n`)

func TestGuard(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		body   string // between the guard's lines; "-" for no output at all
	}{
		{"nothing", nil, "-"},
		{"empty writes", []string{"", ""}, "-"},
		{"one line", []string{"::error file=a.go::pwned\n"}, "::error file=a.go::pwned\n"},
		{"no final line break", []string{"a\n", "::add-mask::x"}, "a\n::add-mask::x\n"},
		{"split writes", []string{"::stop-", "commands::forged\n", "\n"}, "::stop-commands::forged\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			g := NewGuard(&b)
			for _, w := range tt.writes {
				if n, err := g.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if tt.body == "-" {
				if out != "" {
					t.Errorf("wrote %q for no text", out)
				}
				return
			}
			m := guardLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no opening line: %q", out)
			}
			want := m[0] + tt.body + "::" + m[1] + "::\n"
			if out != want {
				t.Errorf("got %q, want %q", out, want)
			}
		})
	}
}

// Every guard has its own token: text cannot end a guard it cannot name.
func TestGuardTokensDiffer(t *testing.T) {
	a, b := string(Guarded([]byte("x\n"))), string(Guarded([]byte("x\n")))
	if a == b || !strings.HasPrefix(a, "::stop-commands::") {
		t.Errorf("%q and %q", a, b)
	}
	if got := Guarded(nil); len(got) != 0 {
		t.Errorf("Guarded(nil) = %q", got)
	}
}

func TestRunning(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "": false, "false": false, "1": false} {
		if got := Running(func(k string) string {
			if k == EnvActions {
				return v
			}
			return ""
		}); got != want {
			t.Errorf("GITHUB_ACTIONS=%q: %v", v, got)
		}
	}
}
