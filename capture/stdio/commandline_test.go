package stdio

import "testing"

func TestCommandLine(t *testing.T) {
	for _, tt := range []struct {
		goos string
		argv []string
		want string
	}{
		{"windows", []string{`C:\Program Files\nodejs\npx.cmd`, "-y", "@scope/server", "C:\\My Files"}, `"C:\Program Files\nodejs\npx.cmd" -y @scope/server "C:\My Files"`},
		{"windows", []string{"node", `say "hi"`, ""}, `node "say \"hi\"" ""`},
		{"linux", []string{"/opt/my server/bin/server", "--root", "/home/me/My Files"}, `'/opt/my server/bin/server' --root '/home/me/My Files'`},
		{"darwin", []string{"npx", "-y", "it's"}, `npx -y 'it'\''s'`},
		// A control character from the config never reaches the terminal.
		{"linux", []string{"server", "\x1b[2Jdone"}, `server '\x1b[2Jdone'`},
		{"windows", []string{"server", "a\x1b]0;title\x07"}, `server a\x1b]0;title\a`},
	} {
		if got := commandLine(tt.goos, tt.argv); got != tt.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tt.goos, tt.argv, got, tt.want)
		}
	}
}
