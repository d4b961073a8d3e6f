package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newTrustCmd) }

type trustOptions struct {
	revoke bool
	list   bool
}

func newTrustCmd() *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Let a project's .mcpsnoop.toml send data off this machine or write outside its folder",
		Long: `A project's .mcpsnoop.toml often arrives with a repository you cloned, and
the shim reads it from whatever folder the client starts it in. So until you
trust it, the settings that send data off this machine or write outside the
project folder are ignored: otlp-endpoint and otlp-header, and trace-file or
log-dir when they lead outside the folder holding the file (links followed)
or into its .git folder. Its other settings apply, and the shim says once on
stderr what it ignored.

"mcpsnoop trust DIR" (default: the current folder) trusts DIR/.mcpsnoop.toml
as it is now: it records the file's absolute path and the SHA-256 of its
content in <state>/trusted.json. When the file changes it is not trusted any
more, until you trust it again. --revoke removes the record; --list shows
the records and whether each file still matches.

Exit codes: 0 done; 1 the file is missing, not a valid config, or the record
could not be read or written; 2 bad arguments.`,
		Example: `  mcpsnoop trust                 # the .mcpsnoop.toml in this folder
  mcpsnoop trust ~/src/my-server
  mcpsnoop trust --revoke ~/src/my-server
  mcpsnoop trust --list`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTrust(cmd, args, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.revoke, "revoke", false, "stop trusting the folder's .mcpsnoop.toml")
	f.BoolVar(&o.list, "list", false, "list the trusted config files")
	return cmd
}

func trustFail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: "mcpsnoop trust: " + fmt.Sprintf(format, args...)}
}

func runTrust(cmd *cobra.Command, args []string, o trustOptions) error {
	out := cmd.OutOrStdout()
	switch {
	case o.list && (o.revoke || len(args) > 0):
		return trustFail(2, "--list takes no folder and no --revoke")
	case o.list:
		return listTrusted(out)
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return trustFail(2, "%s is not a folder", termsafe.Clean(dir, false))
	}
	if o.revoke {
		path, _, err := capture.ProjectConfigPath(dir)
		if err != nil {
			return trustFail(1, "%v", err)
		}
		removed, err := capture.Revoke(path)
		if err != nil {
			return trustFail(1, "%v", err)
		}
		if !removed {
			fmt.Fprintf(out, "%s was not trusted; nothing to do\n", termsafe.Clean(path, false))
			return nil
		}
		fmt.Fprintf(out, "%s is not trusted any more: its settings that send data off this machine or write outside its folder are ignored\n", termsafe.Clean(path, false))
		return nil
	}
	p, err := capture.LoadProjectConfig(dir)
	if err != nil {
		return trustFail(1, "%v", err)
	}
	if p == nil {
		path, _, _ := capture.ProjectConfigPath(dir)
		return trustFail(1, "there is no %s in %s", capture.ConfigFile, termsafe.Clean(path, false))
	}
	changed, err := capture.Trust(p.Path, p.Digest)
	if err != nil {
		return trustFail(1, "%v", err)
	}
	if !changed {
		fmt.Fprintf(out, "%s is already trusted as it is; nothing to do\n", termsafe.Clean(p.Path, false))
		return nil
	}
	fmt.Fprintf(out, "trusted %s (sha256 %s)\n", termsafe.Clean(p.Path, false), p.Digest)
	writeTrustGrants(out, p)
	fmt.Fprintf(out, "a change to the file makes it untrusted again; undo this with: mcpsnoop trust --revoke %s\n", termsafe.Clean(shellWord(p.Dir), false))
	return nil
}

// writeTrustGrants says what trusting the file lets it do, so the user
// sees it: where it sends spans (with how many headers, never their
// values) and where outside the project it writes.
func writeTrustGrants(out io.Writer, p *capture.ProjectConfig) {
	untrusted := *p
	untrusted.Trusted = false
	_, ignored := untrusted.Effective()
	if len(ignored) == 0 {
		fmt.Fprintln(out, "it sets nothing that needs trust today: no collector, and its logs stay inside its folder")
		return
	}
	var grants []string
	for _, ig := range ignored {
		switch {
		case ig.Key == "otlp-endpoint":
			grants = append(grants, fmt.Sprintf("stream every call it records to %s, with %d header(s) of its own", capturecli.ShowEndpoint(ig.Value), len(p.Config.OTLPHeaders)))
		case ig.Key == "otlp-header":
			if p.Config.OTLPEndpoint == nil {
				grants = append(grants, "send OTLP headers (it names no collector)")
			}
		default:
			grants = append(grants, fmt.Sprintf("write its logs to %s (%s)", ig.Outside, ig.Key))
		}
	}
	fmt.Fprintf(out, "it may now: %s\n", termsafe.Clean(strings.Join(grants, "; "), false))
}

// listTrusted prints each trusted file and whether it still matches.
func listTrusted(out io.Writer) error {
	files, err := capture.TrustedConfigs()
	if err != nil {
		return trustFail(1, "%v", err)
	}
	if len(files) == 0 {
		fmt.Fprintln(out, "no config file is trusted")
		return nil
	}
	for _, t := range files {
		state := "matches"
		data, err := capture.ReadConfigFile(t.Path)
		switch {
		case err != nil:
			state = "unreadable: " + err.Error()
		case data == nil:
			state = "missing"
		case capture.ConfigDigest(data) != t.SHA256:
			state = "changed since (not trusted until trusted again)"
		}
		fmt.Fprintf(out, "%s  %s  trusted %s  %s\n", termsafe.Clean(t.Path, false), t.SHA256[:min(12, len(t.SHA256))], t.Trusted.Format("2006-01-02 15:04"), termsafe.Clean(state, false))
	}
	return nil
}
