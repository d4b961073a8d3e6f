package shellquote

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"node", "build/index.js"}, "node build/index.js"},
		{[]string{"bash", "-c", "node build/index.js"}, "bash -c 'node build/index.js'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
		{[]string{"npx", "-y", "mcpsnoop@1.2.3", "--label", "a b"}, "npx -y mcpsnoop@1.2.3 --label 'a b'"},
	} {
		if got := Join(tt.args); got != tt.want {
			t.Errorf("Join(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

// What Join writes, a shell reads back as the same words.
func TestJoinRoundTrips(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX shell")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	args := []string{"plain", "two words", "it's", "", `back\slash`, "$HOME", "`x`", "a\nb", "*"}
	out, err := exec.Command(sh, "-c", `for a in `+Join(args)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("the shell read %q, want %q", got, args)
	}
}
