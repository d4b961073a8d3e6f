// Package clientconfig routes an MCP server of a client's config through
// mcpsnoop and back, by editing the JSON file the client reads: Claude
// Desktop's claude_desktop_config.json, Claude Code's .mcp.json and
// Cursor's mcp.json (servers under "mcpServers"), and VS Code's mcp.json
// (servers under "servers", JSONC). Each maps a server name to
// {"command", "args", "env", ...}. Wrapping points the entry's command at
// mcpsnoop, with the shim's flags, "--" and the old command line as args;
// unwrapping restores it.
//
// Edits are surgical: only the value of the one entry is rewritten (its
// keys come out sorted, unless it holds comments, which an edit in place
// keeps), and every other byte of the file stays as it was.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// InputError is a mistake the user can fix on the command line: a server
// the config does not have, or one mcpsnoop cannot wrap. Every other error
// is about the state of the file.
type InputError struct {
	msg string
	// URL is set when the server is a remote one: the address it is
	// reached at, which `mcpsnoop http --target` can record instead.
	URL string
}

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// Where clients list their MCP servers.
const (
	KeyMCPServers = "mcpServers" // Claude Desktop, Claude Code, Cursor
	KeyServers    = "servers"    // VS Code
)

// AnyKey is what a config of an unknown client is searched for, in order.
var AnyKey = []string{KeyMCPServers, KeyServers}

// doc is a parsed config: its bytes, its view (the bytes with comments
// blanked out, see jsonc.go), where the JSON starts (past a UTF-8 byte
// order mark) and the members of its servers object.
type doc struct {
	data, view []byte
	keys       []string // the keys looked for
	key        string   // the one found ("" when none was)
	servers    []member
}

var bom = []byte("\xef\xbb\xbf")

func parse(data []byte, keys []string) (*doc, error) {
	if len(keys) == 0 {
		keys = AnyKey
	}
	start := 0
	if bytes.HasPrefix(data, bom) {
		start = len(bom) // Windows editors like to add one
	}
	view, _, err := jsoncView(data)
	if err != nil {
		return nil, err
	}
	if !json.Valid(view[start:]) {
		var x any
		err := json.Unmarshal(view[start:], &x)
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	top := jsonwalk.SkipWS(view, start)
	members, err := objectMembers(view, top)
	if err != nil {
		return nil, errors.New("not a JSON object")
	}
	d := &doc{data: data, view: view, keys: keys}
	for _, k := range keys {
		m, ok := lastMember(members, k)
		if !ok {
			continue
		}
		if view[m.valStart] != '{' {
			return nil, fmt.Errorf("%s is not a JSON object", k)
		}
		if d.servers, err = objectMembers(view, m.valStart); err != nil {
			return nil, err
		}
		d.key = k
		break
	}
	return d, nil
}

// Key is where data lists its servers, of keys (nil: AnyKey), or "" when
// it lists none.
func Key(data []byte, keys []string) (string, error) {
	d, err := parse(data, keys)
	if err != nil {
		return "", err
	}
	return d.key, nil
}

// keysText names the keys looked for: "mcpServers" or "servers".
func (d *doc) keysText() string {
	q := make([]string, len(d.keys))
	for i, k := range d.keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, " or ")
}

// knownShape refuses a file read for any client's shape that has none:
// without a servers object of either name it is some other JSON file. A
// config read for one client may lack its servers object (a fresh Claude
// Desktop config does), so that is only a server it does not have.
func (d *doc) knownShape() error {
	if d.key == "" && len(d.keys) > 1 {
		return fmt.Errorf("not an MCP client config: it has no %s object", d.keysText())
	}
	return nil
}

// names lists the servers, sorted, each once.
func (d *doc) names() []string {
	var out []string
	for _, m := range d.servers {
		out = append(out, m.key)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// server finds the named entry and decodes it.
func (d *doc) server(name string) (member, *entry, error) {
	if err := d.knownShape(); err != nil {
		return member{}, nil, err
	}
	m, ok := lastMember(d.servers, name)
	if !ok {
		if d.key == "" || len(d.servers) == 0 {
			return member{}, nil, inputErrorf("no server %q: the config lists no servers under %s", name, d.keysText())
		}
		// The names come from the file, which may come with a cloned
		// repository: escaped for the terminal the message goes to.
		return member{}, nil, inputErrorf("no server %q under %q (servers: %s)", name, d.key, termsafe.Clean(strings.Join(d.names(), ", "), false))
	}
	e, err := decodeEntry(name, d.view[m.valStart:m.valEnd])
	return m, e, err
}

// entry is one server's settings. fields keeps every key, so the ones
// mcpsnoop does not know (env, ...) survive the rewrite.
type entry struct {
	fields  map[string]json.RawMessage
	command string
	args    []string
}

func decodeEntry(name string, raw []byte) (*entry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("server %q is not a JSON object", name)
	}
	e := &entry{fields: fields}
	var url string
	if u, ok := fields["url"]; ok {
		_ = json.Unmarshal(u, &url)
	}
	remote := func(detail string) error {
		if url != "" {
			// The url is the file's: escaped, as the names are.
			return &InputError{URL: url, msg: fmt.Sprintf("server %q is a remote server (url %s); only servers started from a command can be wrapped", name, termsafe.Clean(url, false))}
		}
		return inputErrorf("server %q is not a stdio server (%s); only servers started from a command can be wrapped", name, termsafe.Clean(detail, false))
	}
	if t, ok := fields["type"]; ok {
		var typ string
		if json.Unmarshal(t, &typ) != nil || typ != "stdio" {
			return nil, remote("type " + string(t))
		}
	}
	cmd, ok := fields["command"]
	if !ok {
		return nil, remote("it has no command")
	}
	if err := json.Unmarshal(cmd, &e.command); err != nil {
		return nil, fmt.Errorf("server %q: command is not a string", name)
	}
	if e.command == "" {
		return nil, fmt.Errorf("server %q: command is empty", name)
	}
	if a, ok := fields["args"]; ok && string(a) != "null" {
		if err := json.Unmarshal(a, &e.args); err != nil {
			return nil, fmt.Errorf("server %q: args is not a list of strings", name)
		}
	}
	return e, nil
}

// IsWrapped says whether command is mcpsnoop or its shim's own binary,
// judged by its base name (mcpsnoop or mcpsnoop-shim, with or without
// .exe, in any case), whichever separator the path uses. A copy installed
// under another name is not recognised.
func IsWrapped(command string) bool {
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	base = strings.TrimSuffix(base, ".exe")
	return base == "mcpsnoop" || base == "mcpsnoop-shim"
}

// NPMPackage is the npm package whose launcher runs mcpsnoop: an entry
// that runs it through npx (npx -y mcpsnoop@1.2.3 ..., as wrap writes it
// for a copy npx installed) runs mcpsnoop.
const NPMPackage = "mcpsnoop"

// shimArgsAt says whether an entry runs mcpsnoop, and where mcpsnoop's
// own arguments start in args: at 0 when the command is mcpsnoop
// (IsWrapped), right after the package when it is npx running NPMPackage
// (npx's own flags before it: -y, --yes, --offline, ...).
func shimArgsAt(command string, args []string) (int, bool) {
	if IsWrapped(command) {
		return 0, true
	}
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	if base != "npx" && base != "npx.cmd" && base != "npx.exe" {
		return 0, false
	}
	for i, a := range args {
		if a == "--" {
			return 0, false // npx runs what follows, not a package of its own
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return i + 1, a == NPMPackage || strings.HasPrefix(a, NPMPackage+"@")
	}
	return 0, false
}

// separator is the index in args of the "--" that ends mcpsnoop's own
// arguments of a wrapped entry, or -1.
func separator(command string, args []string) int {
	at, ok := shimArgsAt(command, args)
	if !ok {
		return -1
	}
	if i := slices.Index(args[at:], "--"); i >= 0 {
		return at + i
	}
	return -1
}

// encode renders the entry with its keys sorted, compact or indented to fit
// where the old value stood.
func (e *entry) encode(old []byte, lineIndent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<", ">" and "&" as users wrote them
	if err := enc.Encode(e.fields); err != nil {
		return nil, err
	}
	compact := bytes.TrimRight(buf.Bytes(), "\n")
	if !bytes.ContainsAny(old, "\n\r") {
		return compact, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, lineIndent, indentUnit(old, lineIndent)); err != nil {
		return nil, err
	}
	b := out.Bytes()
	if bytes.Contains(old, []byte("\r\n")) {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	}
	return b, nil
}

// indentUnit guesses one level of indentation from the old value: its
// first inner line's indentation less that of the line the entry starts
// on. Two spaces when that does not work out.
func indentUnit(old []byte, lineIndent string) string {
	nl := bytes.IndexByte(old, '\n')
	if nl < 0 {
		return "  "
	}
	rest := old[nl+1:]
	inner := string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
	if unit, ok := strings.CutPrefix(inner, lineIndent); ok && unit != "" {
		return unit
	}
	return "  "
}

// lineIndent is the run of spaces and tabs that starts the line holding
// data[i].
func lineIndent(data []byte, i int) string {
	start := bytes.LastIndexAny(data[:i], "\n\r") + 1
	line := data[start:i]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// replace returns data with the entry's value swapped for e.
func (d *doc) replace(m member, e *entry) ([]byte, error) {
	val, err := e.encode(d.data[m.valStart:m.valEnd], lineIndent(d.data, m.keyStart))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(d.data)+len(val))
	out = append(out, d.data[:m.valStart]...)
	out = append(out, val...)
	return append(out, d.data[m.valEnd:]...), nil
}

// hasComments says whether the entry's text holds JSONC syntax (comments
// or trailing commas): it is then edited in place instead of re-encoded,
// so that nothing the user wrote is lost.
func (d *doc) hasComments(m member) bool {
	return !bytes.Equal(d.data[m.valStart:m.valEnd], d.view[m.valStart:m.valEnd])
}

func (e *entry) set(key string, v any) {
	raw, _ := json.Marshal(v) // strings and string lists always encode
	e.fields[key] = raw
}

// WrapOptions say how to wrap a server.
type WrapOptions struct {
	// Keys are where the config may list its servers (nil: AnyKey).
	Keys []string
	// Binary is the mcpsnoop binary the entry's command becomes.
	Binary string
	// ShimArgs are mcpsnoop's own flags, put before "--" (e.g. --label NAME).
	ShimArgs []string
}

// Wrap routes server name through mcpsnoop at o.Binary: the entry's command
// becomes the binary and its args o.ShimArgs, "--" and the old command
// line. changed is false when the entry already runs mcpsnoop. entryJSON is
// the entry's value as it is (changed or not) in the result.
func Wrap(data []byte, name string, o WrapOptions) (out []byte, changed bool, entryJSON []byte, err error) {
	d, err := parse(data, o.Keys)
	if err != nil {
		return nil, false, nil, err
	}
	m, e, err := d.server(name)
	if err != nil {
		return nil, false, nil, err
	}
	if _, wrapped := shimArgsAt(e.command, e.args); wrapped {
		return data, false, data[m.valStart:m.valEnd], nil
	}
	args := append(append(slices.Clone(o.ShimArgs), "--", e.command), e.args...)
	if d.hasComments(m) {
		out, err = d.wrapInPlace(m, o.Binary, append(slices.Clone(o.ShimArgs), "--", e.command))
	} else {
		e.set("command", o.Binary)
		e.set("args", args)
		out, err = d.replace(m, e)
	}
	if err != nil {
		return nil, false, nil, err
	}
	entryJSON = out[m.valStart : len(out)-(len(data)-m.valEnd)]
	if err := d.verify(out, name, o.Binary, args); err != nil {
		return nil, false, nil, err
	}
	return out, true, entryJSON, nil
}

// Unwrap undoes Wrap for server name: the command and args after the first
// "--" become the entry's command and args again (an empty args list is
// left out). changed is false when the entry does not run mcpsnoop.
func Unwrap(data []byte, name string, keys []string) (out []byte, changed bool, entryJSON []byte, err error) {
	d, err := parse(data, keys)
	if err != nil {
		return nil, false, nil, err
	}
	m, e, err := d.server(name)
	if err != nil {
		return nil, false, nil, err
	}
	if _, wrapped := shimArgsAt(e.command, e.args); !wrapped {
		return data, false, data[m.valStart:m.valEnd], nil
	}
	sep := separator(e.command, e.args)
	if sep < 0 || sep == len(e.args)-1 {
		return nil, false, nil, fmt.Errorf("server %q runs mcpsnoop but its args have no server command after %s", name, strconv.Quote("--"))
	}
	rest := e.args[sep+1:]
	if d.hasComments(m) {
		out, err = d.unwrapInPlace(m, rest[0], sep+2)
	} else {
		e.set("command", rest[0])
		if len(rest) > 1 {
			e.set("args", rest[1:])
		} else {
			delete(e.fields, "args")
		}
		out, err = d.replace(m, e)
	}
	if err != nil {
		return nil, false, nil, err
	}
	if err := d.verify(out, name, rest[0], rest[1:]); err != nil {
		return nil, false, nil, err
	}
	return out, true, out[m.valStart : len(out)-(len(data)-m.valEnd)], nil
}

// verify re-reads an edited config: it must parse, keep its servers where
// they were, and give server name exactly this command line. An edit in
// place that went wrong is caught here rather than written.
func (d *doc) verify(out []byte, name, command string, args []string) error {
	nd, err := parse(out, []string{d.key})
	if err == nil && nd.key == d.key {
		var e *entry
		if _, e, err = nd.server(name); err == nil && e.command == command && slices.Equal(e.args, args) {
			return nil
		}
	}
	return fmt.Errorf("mcpsnoop could not edit the entry of server %q safely; nothing was written (please report this with the file)", name)
}

// Server is one entry of a config, as wrap sees it.
type Server struct {
	Name    string
	Wrapped bool   // its command is mcpsnoop
	URL     string // a remote server's address ("" for a command)
	Err     error  // why it cannot be wrapped, if it cannot
}

// Servers lists the servers of data, sorted by name, and where they are
// listed.
func Servers(data []byte, keys []string) ([]Server, string, error) {
	d, err := parse(data, keys)
	if err != nil {
		return nil, "", err
	}
	if err := d.knownShape(); err != nil {
		return nil, "", err
	}
	var out []Server
	for _, name := range d.names() {
		s := Server{Name: name}
		_, e, err := d.server(name)
		var ie *InputError
		switch {
		case errors.As(err, &ie):
			s.URL, s.Err = ie.URL, err
		case err != nil:
			s.Err = err
		default:
			_, s.Wrapped = shimArgsAt(e.command, e.args)
		}
		out = append(out, s)
	}
	return out, d.key, nil
}

// AnyWrapped says whether some server in data runs mcpsnoop.
func AnyWrapped(data []byte) bool {
	for _, k := range AnyKey {
		servers, key, err := Servers(data, []string{k})
		if err != nil || key == "" {
			continue
		}
		for _, s := range servers {
			if s.Wrapped {
				return true
			}
		}
	}
	return false
}

// SameConfig says whether two configs mean the same thing, comments left
// aside, reading an empty or null args list as no args (Unwrap leaves an
// empty list out). Numbers must be spelled alike.
func SameConfig(a, b []byte) bool {
	x, errA := decodeLoose(a)
	y, errB := decodeLoose(b)
	return errA == nil && errB == nil && reflect.DeepEqual(x, y) // decoded JSON: maps, slices and scalars
}

func decodeLoose(data []byte) (any, error) {
	view, _, err := jsoncView(bytes.TrimPrefix(data, bom))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(view))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	top, _ := v.(map[string]any)
	for _, k := range AnyKey {
		servers, _ := top[k].(map[string]any)
		for _, s := range servers {
			if e, ok := s.(map[string]any); ok {
				if args, ok := e["args"].([]any); (ok && len(args) == 0) || e["args"] == nil {
					delete(e, "args")
				}
			}
		}
	}
	return v, nil
}

// BackupPath is where the file's state before the first wrap is kept.
func BackupPath(config string) string { return config + ".mcpsnoop.bak" }

// DefaultPath is Claude Desktop's config file under configDir, the OS user
// config folder (os.UserConfigDir): ~/Library/Application Support on macOS,
// %AppData% on Windows, $XDG_CONFIG_HOME or ~/.config elsewhere.
func DefaultPath(configDir string) string {
	return filepath.Join(configDir, "Claude", "claude_desktop_config.json")
}

// ServerNames lists the servers of data, sorted.
func ServerNames(data []byte, keys []string) ([]string, error) {
	d, err := parse(data, keys)
	if err != nil {
		return nil, err
	}
	return d.names(), nil
}
