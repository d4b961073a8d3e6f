// Command mcpsnoop-shim is mcpsnoop's stdio shim on its own: the same
// flags, the same log and the same behaviour as `mcpsnoop [flags] --
// <server command>`, in a binary that links only what the shim runs. A
// client starts one shim per server on every launch, so the shim's start-up
// time and memory are paid many times over; `mcpsnoop wrap` writes this
// binary into client configs when it is installed beside mcpsnoop.
package main

import (
	"io"
	"os"

	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/appversion"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...", as
// mcpsnoop's is.
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the shim with args and returns the exit code: the server's,
// or 2 for a usage error. Its lines begin "mcpsnoop:", as those of
// mcpsnoop running the shim do: it is the same shim.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return capturecli.Run(newRootCmd(stdin, stdout, stderr), args, stderr, nil)
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpsnoop-shim",
		Short: "mcpsnoop's stdio shim, on its own",
		Long: `mcpsnoop-shim is mcpsnoop's stdio shim in a binary of its own: put it in
front of your server's command in your client's MCP config. It starts the
server, forwards every byte both ways unchanged, passes the server's stderr
through, and logs each message to <state>/sessions/<label>-<pid>-<random>.jsonl,
exactly as "mcpsnoop [flags] -- <server command>" does, with the same flags
and the same .mcpsnoop.toml. It links nothing else, so it starts faster and
holds less memory than mcpsnoop; "mcpsnoop wrap" writes it into client
configs when it is installed beside mcpsnoop. Check, view and export its
logs with mcpsnoop.`,
		Example: `  mcpsnoop-shim -- node build/index.js
  mcpsnoop-shim --label files --redact-secrets -- npx -y @modelcontextprotocol/server-filesystem .`,
		Version:       appversion.Of(version),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("mcpsnoop-shim {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	capturecli.SetUpShim(root, "mcpsnoop-shim")
	return root
}
