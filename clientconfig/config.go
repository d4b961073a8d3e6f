// Package clientconfig routes an MCP server of a desktop client through
// mcpsnoop and back, by editing the client's JSON config: Claude Desktop's
// claude_desktop_config.json, whose "mcpServers" object maps a server name
// to {"command", "args", "env"}. Wrapping points the entry's command at
// mcpsnoop, with the old command line after "--"; unwrapping restores it.
//
// Edits are surgical: only the value of the one entry is rewritten (its
// keys come out sorted), and every other byte of the file stays as it was.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// InputError is a mistake the user can fix on the command line: a server
// the config does not have, or one mcpsnoop cannot wrap. Every other error
// is about the state of the file.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// serversKey is where Claude Desktop lists its MCP servers.
const serversKey = "mcpServers"

// doc is a parsed config: its bytes, where the JSON starts (past a UTF-8
// byte order mark) and the members of its mcpServers object.
type doc struct {
	data    []byte
	servers []member
	hasKey  bool // the file has an mcpServers member
}

var bom = []byte("\xef\xbb\xbf")

func parse(data []byte) (*doc, error) {
	start := 0
	if bytes.HasPrefix(data, bom) {
		start = len(bom) // Windows editors like to add one
	}
	if !json.Valid(data[start:]) {
		var x any
		err := json.Unmarshal(data[start:], &x)
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	top := jsonwalk.SkipWS(data, start)
	members, err := objectMembers(data, top)
	if err != nil {
		return nil, errors.New("not a JSON object")
	}
	d := &doc{data: data}
	m, ok := lastMember(members, serversKey)
	if !ok {
		return d, nil
	}
	d.hasKey = true
	if data[m.valStart] != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", serversKey)
	}
	if d.servers, err = objectMembers(data, m.valStart); err != nil {
		return nil, err
	}
	return d, nil
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
	m, ok := lastMember(d.servers, name)
	if !ok {
		if !d.hasKey || len(d.servers) == 0 {
			return member{}, nil, inputErrorf("no server %q: the config lists no servers under %q", name, serversKey)
		}
		return member{}, nil, inputErrorf("no server %q under %q (servers: %s)", name, serversKey, strings.Join(d.names(), ", "))
	}
	e, err := decodeEntry(name, d.data[m.valStart:m.valEnd])
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
	if t, ok := fields["type"]; ok {
		var typ string
		if json.Unmarshal(t, &typ) != nil || typ != "stdio" {
			return nil, inputErrorf("server %q is not a stdio server (type %s); only servers started from a command can be wrapped", name, t)
		}
	}
	cmd, ok := fields["command"]
	if !ok {
		return nil, inputErrorf("server %q is not a stdio server (it has no command); only servers started from a command can be wrapped", name)
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

// IsWrapped says whether command is mcpsnoop, judged by its base name
// (mcpsnoop, or mcpsnoop.exe, in any case), whichever separator the path
// uses. A copy installed under another name is not recognised.
func IsWrapped(command string) bool {
	base := command[strings.LastIndexAny(command, `/\`)+1:]
	return strings.EqualFold(base, "mcpsnoop") || strings.EqualFold(base, "mcpsnoop.exe")
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

func (e *entry) set(key string, v any) {
	raw, _ := json.Marshal(v) // strings and string lists always encode
	e.fields[key] = raw
}

// Wrap routes server name through mcpsnoop at binary: the entry's command
// becomes binary and its args "--" followed by the old command line.
// changed is false when the entry already runs mcpsnoop. entryJSON is the
// entry's value as it is (changed or not) in the result.
func Wrap(data []byte, name, binary string) (out []byte, changed bool, entryJSON []byte, err error) {
	d, err := parse(data)
	if err != nil {
		return nil, false, nil, err
	}
	m, e, err := d.server(name)
	if err != nil {
		return nil, false, nil, err
	}
	if IsWrapped(e.command) {
		return data, false, data[m.valStart:m.valEnd], nil
	}
	e.set("command", binary)
	e.set("args", append([]string{"--", e.command}, e.args...))
	out, err = d.replace(m, e)
	if err != nil {
		return nil, false, nil, err
	}
	return out, true, out[m.valStart : len(out)-(len(data)-m.valEnd)], nil
}

// Unwrap undoes Wrap for server name: the command and args after the first
// "--" become the entry's command and args again (an empty args list is
// left out). changed is false when the entry does not run mcpsnoop.
func Unwrap(data []byte, name string) (out []byte, changed bool, entryJSON []byte, err error) {
	d, err := parse(data)
	if err != nil {
		return nil, false, nil, err
	}
	m, e, err := d.server(name)
	if err != nil {
		return nil, false, nil, err
	}
	if !IsWrapped(e.command) {
		return data, false, data[m.valStart:m.valEnd], nil
	}
	sep := slices.Index(e.args, "--")
	if sep < 0 || sep == len(e.args)-1 {
		return nil, false, nil, fmt.Errorf("server %q runs mcpsnoop but its args have no server command after %s", name, strconv.Quote("--"))
	}
	rest := e.args[sep+1:]
	e.set("command", rest[0])
	if len(rest) > 1 {
		e.set("args", rest[1:])
	} else {
		delete(e.fields, "args")
	}
	out, err = d.replace(m, e)
	if err != nil {
		return nil, false, nil, err
	}
	return out, true, out[m.valStart : len(out)-(len(data)-m.valEnd)], nil
}

// AnyWrapped says whether some server in data runs mcpsnoop.
func AnyWrapped(data []byte) bool {
	d, err := parse(data)
	if err != nil {
		return false
	}
	for _, m := range d.servers {
		var e struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(d.data[m.valStart:m.valEnd], &e) == nil && e.Command != "" && IsWrapped(e.Command) {
			return true
		}
	}
	return false
}

// SameConfig says whether two configs mean the same thing, reading an
// empty or null args list as no args (Unwrap leaves an empty list out).
// Numbers must be spelled alike.
func SameConfig(a, b []byte) bool {
	x, errA := decodeLoose(a)
	y, errB := decodeLoose(b)
	return errA == nil && errB == nil && reflect.DeepEqual(x, y) // decoded JSON: maps, slices and scalars
}

func decodeLoose(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if top, ok := v.(map[string]any); ok {
		if servers, ok := top[serversKey].(map[string]any); ok {
			for _, s := range servers {
				if e, ok := s.(map[string]any); ok {
					if args, ok := e["args"].([]any); (ok && len(args) == 0) || e["args"] == nil {
						delete(e, "args")
					}
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

// ServerNames lists the servers under mcpServers, sorted.
func ServerNames(data []byte) ([]string, error) {
	d, err := parse(data)
	if err != nil {
		return nil, err
	}
	return d.names(), nil
}
