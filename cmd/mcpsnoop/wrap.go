package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/clientconfig"
	"github.com/spf13/cobra"
)

func init() {
	registerCommand(newWrapCmd)
	registerCommand(newUnwrapCmd)
}

// clientClaudeDesktop is the only client wrap knows so far.
const clientClaudeDesktop = "claude-desktop"

type wrapOptions struct {
	client string
	config string
	dryRun bool
}

func (o *wrapOptions) register(cmd *cobra.Command) {
	cmd.ValidArgsFunction = o.completeServers
	f := cmd.Flags()
	f.StringVar(&o.client, "client", clientClaudeDesktop, "client whose config to edit (only claude-desktop so far)")
	f.StringVar(&o.config, "config", "", "config file to edit (default: Claude Desktop's claude_desktop_config.json in the OS user config folder)")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the change, write nothing")
}

func newWrapCmd() *cobra.Command {
	var o wrapOptions
	cmd := &cobra.Command{
		Use:   "wrap SERVER",
		Short: "Route a Claude Desktop MCP server through mcpsnoop",
		Long: `Wrap edits Claude Desktop's config so that the server SERVER (a key under
"mcpServers") starts through mcpsnoop: its command becomes this mcpsnoop
binary and its args "--" followed by the old command and args, so every
session it has is recorded. Restart Claude Desktop to apply it.

Only that server's entry is rewritten (its keys come out sorted); every other
byte of the file stays as it was. Before the first change the file is saved
as <config>.mcpsnoop.bak. Wrapping a server that already runs mcpsnoop does
nothing. "mcpsnoop unwrap SERVER" undoes it.

Exit codes: 0 done or nothing to do; 1 the config is missing, malformed,
changed meanwhile or could not be written; 2 bad flag, unknown server, or a
server that is not started from a command.`,
		Example: `  mcpsnoop wrap filesystem
  mcpsnoop wrap --dry-run --config ./claude_desktop_config.json github`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWrap(cmd, args[0], o, true)
		},
	}
	o.register(cmd)
	return cmd
}

func newUnwrapCmd() *cobra.Command {
	var o wrapOptions
	cmd := &cobra.Command{
		Use:   "unwrap SERVER",
		Short: "Stop routing a Claude Desktop MCP server through mcpsnoop",
		Long: `Unwrap undoes "mcpsnoop wrap SERVER": the command and args after the first
"--" of the entry become its command and args again. When the file then
means the same as the backup wrap saved, the backup's bytes are written back
as they were. Once no server in the file runs mcpsnoop the backup is
removed. Unwrapping a server that does not run mcpsnoop does nothing.

Exit codes: 0 done or nothing to do; 1 the config is missing, malformed,
changed meanwhile or could not be written; 2 bad flag or unknown server.`,
		Example: `  mcpsnoop unwrap filesystem`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWrap(cmd, args[0], o, false)
		},
	}
	o.register(cmd)
	return cmd
}

// configPath is the config file to edit: --config, else Claude Desktop's.
func (o *wrapOptions) configPath(cmd *cobra.Command) (string, error) {
	if cmd.Flags().Changed("config") {
		if o.config == "" {
			return "", errors.New("--config must name a file")
		}
		return o.config, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding Claude Desktop's config: %v; name it with --config", err)
	}
	return clientconfig.DefaultPath(dir), nil
}

// completeServers offers the server names of the config for SERVER.
func (o *wrapOptions) completeServers(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	path, err := o.configPath(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := clientconfig.ServerNames(data)
	return names, cobra.ShellCompDirectiveNoFileComp
}

// executablePath is the running binary, the command a wrapped entry gets.
// It is a variable so tests can give a name wrap recognises.
var executablePath = os.Executable

func runWrap(cmd *cobra.Command, server string, o wrapOptions, wrap bool) error {
	verb := "unwrap"
	if wrap {
		verb = "wrap"
	}
	fail := func(code int, err error) error {
		return &exitError{code: code, msg: "mcpsnoop " + verb + ": " + err.Error()}
	}
	if o.client != clientClaudeDesktop {
		return fail(2, fmt.Errorf("unknown --client %q: only %s is supported", o.client, clientClaudeDesktop))
	}
	path, err := o.configPath(cmd)
	if err != nil {
		return fail(2, err)
	}

	var res clientconfig.Outcome
	var binary string
	if wrap {
		if binary, err = executablePath(); err == nil {
			// No symbolic-link resolution of our own (some systems
			// resolve already): a link such as /usr/local/bin/mcpsnoop
			// outlives the versioned folder a package manager points it at.
			binary, err = filepath.Abs(binary)
		}
		if err != nil {
			return fail(1, fmt.Errorf("finding the mcpsnoop binary: %v", err))
		}
		if strings.Contains(binary, string(filepath.Separator)+"go-build") && !o.dryRun {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpsnoop wrap: warning: %s is a temporary build from go run and will disappear; install mcpsnoop (go install ./cmd/mcpsnoop) and wrap again\n", binary)
		}
		res, err = clientconfig.WrapFile(path, server, binary, o.dryRun)
	} else {
		res, err = clientconfig.UnwrapFile(path, server, o.dryRun)
	}
	if err != nil {
		var ie *clientconfig.InputError
		if errors.As(err, &ie) {
			return fail(2, err)
		}
		if errors.Is(err, fs.ErrNotExist) && !cmd.Flags().Changed("config") {
			err = fmt.Errorf("%w (is Claude Desktop installed? name its config with --config)", err)
		}
		return fail(1, err)
	}
	writeWrapOutcome(cmd, verb, server, path, res, o.dryRun)
	return nil
}

func writeWrapOutcome(cmd *cobra.Command, verb, server, path string, res clientconfig.Outcome, dryRun bool) {
	out := cmd.OutOrStdout()
	if !res.Changed {
		state := "already wrapped"
		if verb == "unwrap" {
			state = "not wrapped"
		}
		fmt.Fprintf(out, "%q is %s in %s; nothing to do\n", server, state, path)
		return
	}
	if dryRun {
		// Shown indented on its own, whatever the file's layout.
		var entry bytes.Buffer
		if json.Indent(&entry, res.Entry, "  ", "  ") != nil {
			entry.Reset()
			entry.Write(res.Entry)
		}
		fmt.Fprintf(out, "would %s %q in %s; its entry would become:\n  %s\n", verb, server, path, entry.Bytes())
		switch {
		case res.BackupCreated:
			fmt.Fprintf(out, "and the file as it is now would be saved to %s\n", res.Backup)
		case res.BackupRestored:
			fmt.Fprintf(out, "(the file would be exactly the backup %s again)\n", res.Backup)
		}
		if res.BackupRemoved {
			fmt.Fprintf(out, "and %s would be removed: no server would run mcpsnoop\n", res.Backup)
		}
		return
	}
	fmt.Fprintf(out, "%s %q in %s\n", map[string]string{"wrap": "wrapped", "unwrap": "unwrapped"}[verb], server, path)
	switch {
	case res.BackupCreated:
		fmt.Fprintf(out, "saved the file as it was to %s\n", res.Backup)
	case res.BackupRestored:
		fmt.Fprintf(out, "restored the file exactly as it was before the first wrap\n")
	}
	if res.BackupRemoved {
		fmt.Fprintf(out, "removed %s: no server runs mcpsnoop any more\n", res.Backup)
	}
	fmt.Fprintln(out, "restart Claude Desktop to apply it")
}
