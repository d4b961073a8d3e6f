package wincmd

import (
	"errors"
	"strings"
	"testing"
)

const cmdExe = `C:\Windows\system32\cmd.exe`

func TestBatchCommandLine(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-y", "@scope/server@1.2.3"}, `-y @scope/server@1.2.3`},
		{[]string{"a&b", "x|y"}, `"a&b" "x|y"`},
		{[]string{"%PATH%"}, `"%%cd:~,%PATH%%cd:~,%"`},
		{[]string{`say "hi"`}, `"say ""hi"""`},
		{[]string{`C:\with space\`}, `"C:\with space\\"`},
		{[]string{`back\"quote`}, `"back\\""quote"`},
		{[]string{"", "^", "!x!"}, `"" "^" "!x!"`},
	} {
		got, err := BatchCommandLine(cmdExe, `C:\Program Files\nodejs\npx.cmd`, tt.args)
		want := `"` + cmdExe + `" /e:on /v:off /d /s /c ""C:\Program Files\nodejs\npx.cmd" ` + tt.want + `"`
		if err != nil || got != want {
			t.Errorf("%q:\n got %s, %v\nwant %s", tt.args, got, err, want)
		}
	}
}

// Arguments cmd.exe cannot carry, and script names it cannot either, are
// refused rather than passed cut short.
func TestBatchCommandLineRefuses(t *testing.T) {
	for _, args := range [][]string{{"a\nb"}, {"ok", "a\rb"}, {"nul\x00"}} {
		if _, err := BatchCommandLine(cmdExe, `C:\x.bat`, args); !errors.Is(err, ErrBatchArgument) {
			t.Errorf("%q: %v", args, err)
		}
	}
	for _, script := range []string{`C:\x".bat`, `C:\dir\`} {
		if _, err := BatchCommandLine(cmdExe, script, nil); err == nil {
			t.Errorf("%q accepted", script)
		}
	}
}

// hostile are arguments that would start a second command, expand a
// variable or lose a character if cmd.exe read them unescaped.
var hostile = []string{
	"a&calc", "a|calc", "a>out.txt", "a<in", "^", "(x)", `"`, `""`, `"&calc&"`,
	`\"&calc`, `a\\"&calc&\\`, "%PATH%", "%%", "100%", "!PATH!", "x^&y", "tab\there",
	"", " ", `C:\Program Files\`, `\\server\share\`, "caf\u00e9 \u4e2d", "a,b;c=d", "#$*+-./:?@_",
	"\x1b[31m", "\u0085", `%cd:~,%`,
}

// Under a model of how cmd.exe reads the command after /s /c, no hostile
// argument leaves a metacharacter outside quotes or a % that expands, and
// a program that the batch file passes %* to reads back every argument.
// (The e2e test in capture/stdio/wintest runs the real cmd.exe.)
func TestBatchCommandLineUnderCmdModel(t *testing.T) {
	for _, a := range hostile {
		args := []string{"first", a, "last"}
		line, err := BatchCommandLine(cmdExe, `C:\srv\run.cmd`, args)
		if err != nil {
			t.Fatalf("%q: %v", a, err)
		}
		_, cmd, ok := strings.Cut(line, " /s /c ")
		if !ok || !strings.HasPrefix(cmd, `"`) || !strings.HasSuffix(cmd, `"`) {
			t.Fatalf("%q: no /s /c \"…\" in %s", a, line)
		}
		cmd = cmd[1 : len(cmd)-1] // what /s leaves
		expanded, err := cmdRead(cmd)
		if err != nil {
			t.Errorf("%q: %v in %s", a, err, cmd)
			continue
		}
		script, rest, _ := strings.Cut(strings.TrimPrefix(expanded, `"C:\srv\run.cmd"`), " ")
		if script != "" {
			t.Errorf("%q: the script name is not first: %s", a, expanded)
		}
		if got := Split(rest); strings.Join(got, "\x00") != strings.Join(args, "\x00") {
			t.Errorf("%q: the program reads %q from %s", a, got, rest)
		}
	}
}

// cmdRead is a model of cmd.exe reading one command line: quotes toggle
// its quoting, & | < > ^ ( ) outside quotes are errors here (they would
// start or change commands), and %% cd:~,% is the only % allowed: it
// expands to a single %.
func cmdRead(s string) (string, error) {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '%':
			if !strings.HasPrefix(s[i:], "%%cd:~,%") {
				return "", errors.New("a % that cmd.exe would expand")
			}
			b.WriteByte('%')
			i += len("%%cd:~,%") - 1
			continue
		case !quoted && strings.IndexByte("&|<>^()", c) >= 0:
			return "", errors.New("a metacharacter outside quotes: " + string(c))
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}
