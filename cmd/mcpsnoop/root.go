package main

import (
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// appVersion is the build's version: the linker-set one, else the module
// version `go install` recorded, else 0.0.0-dev.
func appVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && len(bi.Main.Version) > 1 && bi.Main.Version[0] == 'v' {
		return bi.Main.Version[1:]
	}
	return "0.0.0-dev"
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpsnoop",
		Short: "See and gate the MCP traffic between AI clients and tool servers",
		Long: `mcpsnoop records the JSON-RPC traffic between an MCP client and server into
session logs, and checks those logs in CI: protocol errors, invalid frames,
conformance warnings, hung calls and latency budgets.

Run as "mcpsnoop [flags] -- <server command> [args...]" it is a stdio shim:
put it in front of your server's command in your client's MCP config. It
starts the server, forwards every byte both ways unchanged, passes the
server's stderr through, and logs each message to
<state>/sessions/<label>-<pid>-<random>.jsonl. Signals are passed on to the
server and its exit status is the shim's. Flags may also come from a
.mcpsnoop.toml in the working directory; flags on the command line win.

Run as "mcpsnoop" with no command it is the live view: it loads the newest
session logs (--history-limit, default 100, 0 for all) and follows the
state directory for new and growing ones, so shims and the viewer need no
socket and either may start first. When stdout is not a terminal it prints
those sessions' frames as text instead and exits. "mcpsnoop demo" records a
scripted session and shows it.`,
		Version:       appVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("mcpsnoop {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	setUpShim(root)
	setUpLive(root)
	root.AddCommand(newCheckCmd(), newBaselineCmd())
	for _, c := range extraCommands {
		root.AddCommand(c())
	}
	return root
}

// extraCommands are subcommands that register themselves from their own
// files (registerCommand in an init function), so adding one touches only
// its file.
var extraCommands []func() *cobra.Command

func registerCommand(c func() *cobra.Command) { extraCommands = append(extraCommands, c) }
