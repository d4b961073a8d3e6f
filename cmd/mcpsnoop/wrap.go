package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/clientconfig"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/shellquote"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/spf13/cobra"
)

func init() {
	registerCommand(newWrapCmd)
	registerCommand(newUnwrapCmd)
}

// clientClaudeDesktop is the client wrap edits when none is named.
const clientClaudeDesktop = "claude-desktop"

type wrapOptions struct {
	client string
	global bool
	config string
	all    bool
	dryRun bool
	label  string // wrap only
	logDir string // wrap only
}

func (o *wrapOptions) register(cmd *cobra.Command) {
	cmd.ValidArgsFunction = o.completeServers
	f := cmd.Flags()
	f.StringVar(&o.client, "client", clientClaudeDesktop, "client whose config to edit: "+strings.Join(clientconfig.ClientNames(), ", "))
	f.BoolVar(&o.global, "global", false, "edit the client's user-wide config (~/.cursor/mcp.json for cursor) instead of the project's")
	f.StringVar(&o.config, "config", "", "config file to edit, of any of those clients' shapes (default: the client's own)")
	f.BoolVar(&o.all, "all", false, "every server of the config, instead of the ones named")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the change, write nothing")
}

func newWrapCmd() *cobra.Command {
	var o wrapOptions
	cmd := &cobra.Command{
		Use:   "wrap SERVER... | --all",
		Short: "Route MCP servers of a client's config through mcpsnoop",
		Long: `Wrap edits an MCP client's config so that the server SERVER (a key under
"mcpServers", or "servers" for VS Code) starts through mcpsnoop: its command
becomes this mcpsnoop binary and its args the shim's flags (--label, by
default the server's key, and --log-dir when given), "--" and the old
command and args, so every session it has is recorded. Restart the server
in the client to apply it. When mcpsnoop-shim (the shim on its own, which
starts faster and holds less memory) of this version is installed beside
this binary, the entries run it instead. A copy of mcpsnoop that npx runs
from its cache (npx mcpsnoop wrap ...), which npm may clear, writes "npx -y
mcpsnoop@VERSION" as the command instead of its own path; a global or a
project's npm install writes its path, which stays.

Clients (--client): claude-desktop (claude_desktop_config.json in the user
config folder, the default), claude-code (.mcp.json in the current
directory), cursor (.cursor/mcp.json in the current directory, or
~/.cursor/mcp.json with --global) and vscode (.vscode/mcp.json in the
current directory). --config names any file of those shapes.

Only that server's entry is rewritten (its keys come out sorted, unless it
holds comments: then only its command and args change, in place); every
other byte of the file, comments and trailing commas included, stays as it
was. Before the first change the file is saved as <config>.mcpsnoop.bak.
The file is locked while it is read, changed and written, so wraps run at
once all land; it is read again before it is replaced, and left alone when
something else changed it meanwhile. A read-only file is refused. A file
with other hard links is written in place, once a backup of it is there
and reads back, so that every name keeps seeing it.
Wrapping a server that already runs mcpsnoop does nothing. A remote server
(one with a url) is not wrapped: wrap prints the "mcpsnoop http" command
that records it instead. "mcpsnoop unwrap SERVER" undoes it.

Exit codes: 0 done or nothing to do; 1 the config is missing, malformed,
changed meanwhile or could not be written; 2 bad flag, unknown server, or a
server that is not started from a command.`,
		Example: `  mcpsnoop wrap filesystem
  mcpsnoop wrap --client claude-code --all --log-dir artifacts/mcp
  mcpsnoop wrap --client vscode --label fs-ci files
  mcpsnoop wrap --dry-run --config ./claude_desktop_config.json github`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWrap(cmd, args, o, true)
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.label, "label", "", "label the shim gives the server's sessions (default: the server's key in the config); one server only")
	f.StringVar(&o.logDir, "log-dir", "", "folder the shim writes the session logs to (made absolute; default: the state directory)")
	return cmd
}

func newUnwrapCmd() *cobra.Command {
	var o wrapOptions
	cmd := &cobra.Command{
		Use:   "unwrap SERVER... | --all",
		Short: "Stop routing MCP servers of a client's config through mcpsnoop",
		Long: `Unwrap undoes "mcpsnoop wrap SERVER": the command and args after the first
"--" of the entry become its command and args again. Only what wrap added
is taken out: edits made to the file since, comments included, stay. An
entry nobody edited since the wrap gets back the very bytes it had before
it, from the backup. Once no server in the file runs mcpsnoop the backup is
removed. It locks and checks the file as wrap does. Unwrapping a server that does not run mcpsnoop does
nothing. --client, --global and --config find the file as for wrap.

Exit codes: 0 done or nothing to do; 1 the config is missing, malformed,
changed meanwhile or could not be written; 2 bad flag or unknown server.`,
		Example: `  mcpsnoop unwrap filesystem
  mcpsnoop unwrap --client claude-code --all`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWrap(cmd, args, o, false)
		},
	}
	o.register(cmd)
	return cmd
}

// target is the config to edit and how to read it.
type wrapTarget struct {
	path   string
	keys   []string // where servers may be listed (nil: any shape)
	client *clientconfig.Client
}

// target finds the config file: --config, else the client's own.
func (o *wrapOptions) target(cmd *cobra.Command) (wrapTarget, error) {
	c, ok := clientconfig.LookupClient(o.client)
	if !ok {
		return wrapTarget{}, fmt.Errorf("unknown --client %q: use %s", o.client, strings.Join(clientconfig.ClientNames(), ", "))
	}
	clientNamed := cmd.Flags().Changed("client")
	if cmd.Flags().Changed("config") {
		if o.config == "" {
			return wrapTarget{}, errors.New("--config must name a file")
		}
		if o.global {
			return wrapTarget{}, errors.New("--global and --config both say which file to edit; give one")
		}
		t := wrapTarget{path: o.config}
		if clientNamed {
			t.keys, t.client = []string{c.Key}, &c
		}
		return t, nil
	}
	var dirs clientconfig.Dirs
	var dirErr error
	var err error
	if dirs.Work, err = os.Getwd(); err != nil {
		dirErr = err
	}
	if dirs.Home, err = os.UserHomeDir(); err != nil && dirErr == nil {
		dirErr = err
	}
	if dirs.Config, err = os.UserConfigDir(); err != nil && dirErr == nil {
		dirErr = err
	}
	path, err := c.Path(dirs, o.global)
	if err != nil {
		return wrapTarget{}, err
	}
	if !filepath.IsAbs(path) {
		return wrapTarget{}, fmt.Errorf("finding %s's config: %v; name it with --config", c.Title, dirErr)
	}
	return wrapTarget{path: path, keys: []string{c.Key}, client: &c}, nil
}

// completeServers offers the server names of the config for SERVER.
func (o *wrapOptions) completeServers(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	t, err := o.target(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	data, err := os.ReadFile(t.path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := clientconfig.ServerNames(data, t.keys)
	var out []string
	for _, n := range names {
		// The config may be a repository's, and the shell prints what is
		// offered: a name termsafe would change (a line break would add a
		// candidate or a forged ":directive" line, an escape sequence
		// would reach the terminal, a tab would start a description) is
		// not offered, since its escaped form would name no server.
		if !slices.Contains(args, n) && termsafe.Clean(n, false) == n {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// executablePath is the running binary, the command a wrapped entry gets.
// It is a variable so tests can give a name wrap recognises.
var executablePath = os.Executable

func runWrap(cmd *cobra.Command, names []string, o wrapOptions, wrap bool) error {
	j := &wrapJob{cmd: cmd, o: o, wrap: wrap, verb: "unwrap", out: cmd.OutOrStdout()}
	if wrap {
		j.verb = "wrap"
	}
	if err := j.validate(names); err != nil {
		return j.fail(2, err)
	}
	t, err := o.target(cmd)
	if err != nil {
		return j.fail(2, err)
	}
	j.t = t
	if j.logDir, err = absLogDir(o.logDir); err != nil {
		return j.fail(2, err)
	}
	// Read the file once up front: a malformed config, or a name it does
	// not have, stops everything before anything is written.
	data, servers, err := j.readServers()
	if err != nil {
		return j.fail(1, err)
	}
	todo, err := j.pick(names, servers, data)
	if err != nil {
		return j.fail(2, err)
	}
	if wrap && len(todo) > 0 {
		if err := j.findCommand(); err != nil {
			return j.fail(1, err)
		}
	}
	changed := false
	for _, name := range todo {
		res, err := j.edit(name)
		if err != nil {
			var ie *clientconfig.InputError
			if errors.As(err, &ie) {
				return j.fail(2, err)
			}
			return j.fail(1, err)
		}
		changed = changed || res.Changed
		writeWrapOutcome(cmd, j.verb, name, t.path, res, o.dryRun, o.label != "" || o.logDir != "")
	}
	if changed && !o.dryRun {
		apply := "restart the client, or the server in it, to apply it"
		if t.client != nil {
			apply = t.client.Apply
		}
		fmt.Fprintln(j.out, apply)
	}
	return nil
}

// wrapJob is one wrap or unwrap: what it was asked, the config it edits,
// and the command the wrapped entries run.
type wrapJob struct {
	cmd    *cobra.Command
	o      wrapOptions
	wrap   bool
	verb   string
	out    io.Writer
	t      wrapTarget
	logDir string   // absolute, or empty
	binary string   // the mcpsnoop the entries run (wrap)
	npx    []string // the npx command they run instead, when this mcpsnoop is npx's
}

func (j *wrapJob) fail(code int, err error) error {
	return &exitError{code: code, msg: "mcpsnoop " + j.verb + ": " + err.Error()}
}

// validate refuses flags and names that do not go together.
func (j *wrapJob) validate(names []string) error {
	o, flags := j.o, j.cmd.Flags()
	switch {
	case o.all && len(names) > 0:
		return errors.New("--all takes no server names; give either")
	case !o.all && len(names) == 0:
		return errors.New("name a server, or give --all")
	case o.label != "" && (o.all || len(names) > 1):
		return errors.New("--label names one server's sessions; wrap that server on its own")
	case flags.Changed("label") && o.label == "":
		return errors.New("--label must not be empty")
	case flags.Changed("log-dir") && o.logDir == "":
		return errors.New("--log-dir must name a folder")
	}
	if o.label != "" {
		if err := capture.ValidateLabel(o.label); err != nil {
			return fmt.Errorf("--label: %v", err)
		}
	}
	return nil
}

// absLogDir makes --log-dir absolute: the client picks the server's
// working directory, so a relative folder would land wherever that is.
func absLogDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--log-dir: %v", err)
	}
	return abs, nil
}

// readServers reads the config file and the servers it lists.
func (j *wrapJob) readServers() ([]byte, []clientconfig.Server, error) {
	data, err := os.ReadFile(j.t.path)
	if err != nil {
		err = fmt.Errorf("%s: %w", j.t.path, atomicfile.PlainError(err))
		if errors.Is(err, fs.ErrNotExist) && !j.cmd.Flags().Changed("config") {
			err = fmt.Errorf("%w (%s)", err, missingConfigHint(j.t.client))
		}
		return nil, nil, err
	}
	servers, _, err := clientconfig.Servers(data, j.t.keys)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", j.t.path, err)
	}
	return data, servers, nil
}

// pick lists the servers to edit: the ones named, each checked first, or
// with --all every one that can be (saying why others are skipped).
func (j *wrapJob) pick(names []string, servers []clientconfig.Server, data []byte) ([]string, error) {
	if !j.o.all {
		for _, name := range names {
			if err := checkServer(servers, name, j.t.path, data, j.t.keys, j.wrap, j.logDir); err != nil {
				return nil, err
			}
		}
		return names, nil
	}
	var todo []string
	for _, s := range servers {
		switch {
		case j.wrap && s.URL != "":
			fmt.Fprintf(j.out, "skipped %q: it is a remote server; %s\n", s.Name, httpHint(s.Name, s.URL, j.logDir))
		case j.wrap && s.Err != nil:
			fmt.Fprintf(j.out, "skipped %q: %v\n", s.Name, s.Err)
		case !j.wrap && !s.Wrapped:
		default:
			todo = append(todo, s.Name)
		}
	}
	if len(todo) == 0 && !j.wrap {
		fmt.Fprintf(j.out, "no server runs mcpsnoop in %s; nothing to do\n", j.t.path)
	}
	return todo, nil
}

// findCommand decides what the wrapped entries run: the path of the
// mcpsnoop-shim of this version beside this binary, else this binary's
// path; or npx's command when this mcpsnoop runs from npx's cache.
func (j *wrapJob) findCommand() error {
	binary, err := executablePath()
	if err == nil {
		// No symbolic-link resolution of our own (some systems resolve
		// already): a link such as /usr/local/bin/mcpsnoop outlives the
		// versioned folder a package manager points it at.
		binary, err = filepath.Abs(binary)
	}
	if err != nil {
		return fmt.Errorf("finding the mcpsnoop binary: %v", err)
	}
	j.binary = binary
	if strings.Contains(binary, string(filepath.Separator)+"go-build") && !j.o.dryRun {
		fmt.Fprintf(j.cmd.ErrOrStderr(), "mcpsnoop wrap: warning: %s is a temporary build from go run and will disappear; install mcpsnoop (go install ./cmd/mcpsnoop) and wrap again\n", binary)
	}
	if args, ok := npxCommand(binary); ok {
		j.npx = args
		fmt.Fprintf(j.out, "note: this mcpsnoop runs from npx's cache, which npm may clear, so the entries run %q instead of %s (npm i -g %s and wrap again for an installed path)\n",
			strings.Join(j.npx, " "), binary, clientconfig.NPMPackage)
		return nil
	}
	// Entries run the shim's own binary when it is installed alongside:
	// it starts faster and holds less memory than mcpsnoop.
	shim, why := shimBeside(binary)
	if why != "" {
		fmt.Fprintf(j.cmd.ErrOrStderr(), "mcpsnoop wrap: warning: %s; the entries run %s instead\n", termsafe.Clean(why, false), binary)
	}
	if shim != "" {
		j.binary = shim
	}
	return nil
}

// edit wraps or unwraps one server's entry.
func (j *wrapJob) edit(name string) (clientconfig.Outcome, error) {
	if !j.wrap {
		return clientconfig.UnwrapFile(j.t.path, name, j.t.keys, j.o.dryRun)
	}
	shimArgs, note := wrapShimArgs(name, j.o.label, j.logDir)
	if note != "" {
		fmt.Fprintln(j.out, note)
	}
	wo := clientconfig.WrapOptions{Keys: j.t.keys, Binary: j.binary, ShimArgs: shimArgs}
	if j.npx != nil {
		wo.Binary, wo.ShimArgs = j.npx[0], append(append([]string(nil), j.npx[1:]...), shimArgs...)
	}
	return clientconfig.WrapFile(j.t.path, name, wo, j.o.dryRun)
}

// checkServer refuses a name wrap cannot act on, before anything is
// written: one the config does not have, or (for wrap) one that is not
// started from a command, whose message shows the mcpsnoop http command
// that records it.
func checkServer(servers []clientconfig.Server, name, path string, data []byte, keys []string, wrap bool, logDir string) error {
	for _, s := range servers {
		if s.Name != name {
			continue
		}
		if !wrap || s.Err == nil {
			return nil
		}
		var ie *clientconfig.InputError
		if errors.As(s.Err, &ie) && ie.URL != "" {
			return fmt.Errorf("%s: %v; %s", path, s.Err, httpHint(name, ie.URL, logDir))
		}
		return fmt.Errorf("%s: %w", path, s.Err)
	}
	// Unknown: let the package say so, with the servers there are.
	var err error
	if wrap {
		_, _, _, err = clientconfig.Wrap(data, name, clientconfig.WrapOptions{Keys: keys})
	} else {
		_, _, _, err = clientconfig.Unwrap(data, name, keys)
	}
	if err == nil {
		err = fmt.Errorf("no server %q", name)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// wrapShimArgs are the shim flags a wrapped entry gets: --label (the one
// given, else the server's key when that is a usable label) and --log-dir.
// note explains a key that cannot be a label.
func wrapShimArgs(name, label, logDir string) (args []string, note string) {
	if label == "" {
		if err := capture.ValidateLabel(name); err != nil {
			note = fmt.Sprintf("note: the key %q cannot be a label (%v), so the shim names %q's logs after its command; give --label to choose", name, err, name)
		} else {
			label = name
		}
	}
	if label != "" {
		args = append(args, "--label", label)
	}
	if logDir != "" {
		args = append(args, "--log-dir", logDir)
	}
	return args, note
}

// httpHint is the command that records a remote server instead.
func httpHint(name, url, logDir string) string {
	args := []string{"mcpsnoop", "http", "--target", shellWord(url)}
	if capture.ValidateLabel(name) == nil {
		args = append(args, "--label", shellWord(name))
	}
	if logDir != "" {
		args = append(args, "--log-dir", shellWord(logDir))
	}
	return fmt.Sprintf("to record it, run %q and point %q at the address it listens on (127.0.0.1:7000 unless --listen says otherwise)", strings.Join(args, " "), name)
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string { return shellquote.Word(s) }

func missingConfigHint(c *clientconfig.Client) string {
	if c == nil {
		return "name the config with --config"
	}
	if c.Name == clientClaudeDesktop {
		return "is Claude Desktop installed? name its config with --config"
	}
	return fmt.Sprintf("%s's config is %s; run mcpsnoop there, or name the file with --config", c.Title, c.Where())
}

func writeWrapOutcome(cmd *cobra.Command, verb, server, path string, res clientconfig.Outcome, dryRun, flagsGiven bool) {
	out := cmd.OutOrStdout()
	if !res.Changed {
		state := "already wrapped"
		if verb == "unwrap" {
			state = "not wrapped"
		}
		fmt.Fprintf(out, "%q is %s in %s; nothing to do\n", server, state, path)
		if verb == "wrap" && flagsGiven {
			fmt.Fprintf(out, "(its flags stay as they are: unwrap it and wrap it again to change --label or --log-dir)\n")
		}
		return
	}
	if dryRun {
		// Shown indented on its own, whatever the file's layout.
		var entry bytes.Buffer
		if json.Indent(&entry, res.Entry, "  ", "  ") != nil {
			entry.Reset()
			entry.Write(res.Entry)
		}
		// The entry comes from a config that may have arrived with a cloned
		// repository: a bidirectional override in it must not reach the
		// terminal raw.
		fmt.Fprintf(out, "would %s %q in %s; its entry would become:\n  %s\n", verb, server, path, termsafe.Clean(entry.String(), true))
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
}
