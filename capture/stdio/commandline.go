package stdio

import (
	"runtime"

	"github.com/mcpsnoop/mcpsnoop/internal/shellquote"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/internal/wincmd"
)

// CommandLine writes a server's argv for a person to read (the shim's
// "logging …" line): each argument quoted as this platform reads command
// lines, Windows programs' rules on Windows and a POSIX shell's elsewhere,
// so that where one argument ends shows when a path holds spaces. Control
// characters are made visible: the command comes from a config file.
func CommandLine(argv []string) string { return commandLine(runtime.GOOS, argv) }

func commandLine(goos string, argv []string) string {
	if goos == "windows" {
		return termsafe.Clean(wincmd.CommandLine(argv), false)
	}
	return termsafe.Clean(shellquote.Join(argv), false)
}
