package wincmd

import (
	"errors"
	"strings"
	"testing"
)

// A fake file system: the files that exist, named without regard to case
// as Windows names them.
func files(paths ...string) func(string) bool {
	m := map[string]bool{}
	for _, p := range paths {
		m[strings.ToLower(p)] = true
	}
	return func(p string) bool { return m[strings.ToLower(p)] }
}

func TestLookup(t *testing.T) {
	const path = `C:\Windows\system32;"C:\Program Files\nodejs";;C:\tools\`
	for _, tt := range []struct {
		name, pathExt string
		files         []string
		want          string
		notFound      bool
	}{
		{name: "npx", files: []string{`C:\Program Files\nodejs\npx`, `C:\Program Files\nodejs\npx.cmd`}, want: `C:\Program Files\nodejs\npx.cmd`},
		{name: "node", files: []string{`C:\Program Files\nodejs\node.exe`}, want: `C:\Program Files\nodejs\node.exe`},
		// PATHEXT's order decides within a folder, PATH's across folders.
		{name: "srv", files: []string{`C:\tools\srv.bat`, `C:\tools\srv.exe`}, want: `C:\tools\srv.exe`},
		{name: "srv", pathExt: ".BAT;.EXE", files: []string{`C:\tools\srv.bat`, `C:\tools\srv.exe`}, want: `C:\tools\srv.bat`},
		{name: "srv", files: []string{`C:\tools\srv.exe`, `C:\Windows\system32\srv.cmd`}, want: `C:\Windows\system32\srv.cmd`},
		{name: "srv", pathExt: "EXE", files: []string{`C:\tools\SRV.EXE`}, want: `C:\tools\srv.exe`},
		// A name with its extension is taken as it is, and with PATHEXT's
		// extensions after it (foo.v2 is not foo.v2.exe's extension).
		{name: "npx.cmd", files: []string{`C:\Program Files\nodejs\npx.cmd`}, want: `C:\Program Files\nodejs\npx.cmd`},
		{name: "srv.v2", files: []string{`C:\tools\srv.v2.exe`}, want: `C:\tools\srv.v2.exe`},
		// A file without an extension never runs: cmd.exe would not.
		{name: "npx", files: []string{`C:\Program Files\nodejs\npx`}, notFound: true},
		// A path is looked for there, not in PATH.
		{name: `C:\srv\server`, files: []string{`C:\srv\server.exe`, `C:\tools\server.exe`}, want: `C:\srv\server.exe`},
		{name: `.\run`, files: []string{`.\run.bat`}, want: `.\run.bat`},
		{name: `D:server`, files: []string{`C:\tools\D:server.exe`}, notFound: true},
		// The current folder is not searched.
		{name: "npx", files: []string{`npx.cmd`, `.\npx.cmd`}, notFound: true},
		{name: "nothing", notFound: true},
	} {
		got, err := Lookup(tt.name, path, tt.pathExt, files(tt.files...))
		switch {
		case tt.notFound && !errors.Is(err, ErrNotFound):
			t.Errorf("%s in %v: %q, %v; want not found", tt.name, tt.files, got, err)
		case !tt.notFound && (err != nil || got != tt.want):
			t.Errorf("%s in %v (PATHEXT %q): %q, %v; want %q", tt.name, tt.files, tt.pathExt, got, err, tt.want)
		}
	}
}

func TestIsBatch(t *testing.T) {
	for p, want := range map[string]bool{
		`C:\nodejs\npx.cmd`: true, `run.BAT`: true, `C:\x.cmd\server.exe`: false,
		`C:\nodejs\node.exe`: false, `C:\batch.bat\server`: false, `cmd`: false,
	} {
		if IsBatch(p) != want {
			t.Errorf("IsBatch(%s) = %v", p, !want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ arg, want string }{
		{`C:\srv\server.exe`, `C:\srv\server.exe`},
		{`C:\Program Files\srv\server.exe`, `"C:\Program Files\srv\server.exe"`},
		{``, `""`},
		{`a"b`, `"a\"b"`},
		{`a\"b`, `"a\\\"b"`},
		{`C:\with space\`, `"C:\with space\\"`},
		{`tab	here`, `"tab	here"`},
		{`a\\b`, `a\\b`}, // backslashes mean something only before a quote
	} {
		if got := Quote(tt.arg); got != tt.want {
			t.Errorf("Quote(%s) = %s, want %s", tt.arg, got, tt.want)
		}
	}
	if got := CommandLine([]string{`C:\Program Files\nodejs\node.exe`, "server.js", "--name", "my server"}); got != `"C:\Program Files\nodejs\node.exe" server.js --name "my server"` {
		t.Errorf("CommandLine: %s", got)
	}
}

// What CommandLine writes, a program's C runtime reads back as the same
// arguments.
func TestCommandLineRoundTrips(t *testing.T) {
	args := append([]string{`C:\Program Files\srv\server.exe`}, hostile...)
	if got := Split(CommandLine(args)); strings.Join(got, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("read back %q\nwant %q", got, args)
	}
}
