package main

import (
	"io"
	"os/exec"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/appversion"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// appVersion is the build's version (see appversion.Of).
func appVersion() string { return appversion.Of(version) }

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
Until you trust that file ("mcpsnoop trust"), the settings in it that would
send data off this machine or write outside its folder are ignored.
With --otlp-endpoint URL each call that ends is also streamed as a span to
an OpenTelemetry collector, never delaying traffic.

Run as "mcpsnoop" with no command it is the live view: it loads the newest
session logs (--history-limit, default 100, 0 for all) and follows the
log folders (the state directory's sessions, $MCPSNOOP_LOG_DIR, and the
log-dir of .mcpsnoop.toml when it exists) for new and growing ones, so
shims and the viewer need no socket and either may start first. When stdout is not a terminal it prints
those sessions' frames as text instead and exits. "mcpsnoop demo" records a
scripted session and shows it.

Run as "mcpsnoop --metrics-listen ADDR [folder...]" it is a headless hub: it
follows the same log folders and the folders given, and
serves Prometheus metrics of the calls they record on ADDR (no
authentication: keep it on 127.0.0.1 unless something guards it).`,
		Version:       appVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("mcpsnoop {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	capturecli.SetUpShim(root, "mcpsnoop")
	setUpLive(root)
	root.Example = `  mcpsnoop                                 # the live view: every session as it is recorded
  mcpsnoop -- node build/index.js          # run a server through the shim (in your MCP config)
  mcpsnoop --label files --redact-secrets -- npx -y @modelcontextprotocol/server-filesystem .
  mcpsnoop demo                            # record a scripted session and watch it
  mcpsnoop --metrics-listen 127.0.0.1:9464 # Prometheus metrics of every session, as they happen
  mcpsnoop open                            # look through the newest session
  mcpsnoop export -T html -o session.html  # the newest session as one HTML page
  mcpsnoop check                           # check the newest log
  mcpsnoop trust                           # let this folder's .mcpsnoop.toml stream spans or log elsewhere`
	root.AddCommand(newCheckCmd(), newBaselineCmd())
	for _, c := range extraCommands {
		root.AddCommand(c())
	}
	// A flag error names the command it belongs to: "mcpsnoop export: ...".
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: 2, msg: c.CommandPath() + ": " + err.Error()}
	})
	return root
}

// misspeltCommand returns the subcommand name arg is probably a typo of
// ("exprot" for export): within edit distance 2 of a name, not a path, and
// no program of that name on PATH. "" when arg looks like a server command.
func misspeltCommand(root *cobra.Command, arg string) string {
	if len(arg) < 3 || strings.ContainsAny(arg, `/\`) {
		return ""
	}
	best, bestD := "", 3
	for _, c := range root.Commands() {
		if c.Hidden || !c.IsAvailableCommand() {
			continue
		}
		for _, name := range append([]string{c.Name()}, c.Aliases...) {
			if d := editDistance(strings.ToLower(arg), name); d < bestD {
				best, bestD = c.Name(), d
			}
		}
	}
	if best == "" {
		return ""
	}
	if _, err := lookPath(arg); err == nil {
		return ""
	}
	return best
}

// lookPath finds a program (a test hook).
var lookPath = exec.LookPath

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// extraCommands are subcommands that register themselves from their own
// files (registerCommand in an init function), so adding one touches only
// its file.
var extraCommands []func() *cobra.Command

func registerCommand(c func() *cobra.Command) { extraCommands = append(extraCommands, c) }
