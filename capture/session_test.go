package capture

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestValidateLabel(t *testing.T) {
	for _, ok := range []string{"server.py", "a..b", "127.0.0.1:8080", "files é", strings.Repeat("x", 200)} {
		if err := ValidateLabel(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a/b", `a\b`, "-x", "a\x00b", "tab\there", "c1\u0085", strings.Repeat("x", 201), "\xff"} {
		if err := ValidateLabel(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestNewSessionID(t *testing.T) {
	id := NewSessionID("server.py")
	if !regexp.MustCompile(`^server\.py-` + strconv.Itoa(os.Getpid()) + `-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("session id %q", id)
	}
	if a, b := NewSessionID("x"), NewSessionID("x"); a == b {
		t.Error("two ids are the same")
	}
	for label, want := range map[string]string{"127.0.0.1:38081": "127.0.0.1_38081", "exit 7": "exit_7", "files é": "files_é"} {
		if id := NewSessionID(label); !strings.HasPrefix(id, want+"-") {
			t.Errorf("NewSessionID(%q) = %q, want it to start %q", label, id, want)
		}
	}
}

func TestPortableName(t *testing.T) {
	for in, want := range map[string]string{
		"server.py": "server.py", "127.0.0.1:38081": "127.0.0.1_38081", "exit 7": "exit_7",
		`a<b>c"d|e?f*g`: "a_b_c_d_e_f_g", "mcp_server-git": "mcp_server-git", "服务器": "服务器", "a\u202eb": "a_b",
	} {
		if got := PortableName(in); got != want {
			t.Errorf("PortableName(%q) = %q, want %q", in, got, want)
		}
	}
}
