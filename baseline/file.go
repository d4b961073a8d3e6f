package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// Version is the baseline file version this package writes. Version 1
// files, which record only name, description and input schema, are read.
const Version = 2

// ErrNotFound is what Load returns (wrapped) when a label has no baseline
// yet. It also matches fs.ErrNotExist.
var ErrNotFound = fmt.Errorf("no tool baseline yet: %w", fs.ErrNotExist)

// ErrNoLabel is returned for the empty label: a baseline keyed by nothing
// would be shared by every unlabelled server.
var ErrNoLabel = errors.New("a tool baseline needs a server label")

// file is a baseline file as stored (check.md section 4.2). The field order
// is the order written.
type file struct {
	Version int    `json:"version"`
	Server  string `json:"server"`
	// ServerName is the serverInfo.name the baseline was recorded for;
	// absent for a server that gave none, and in files written before
	// baselines were keyed by it (which the reference reads as before).
	ServerName string     `json:"server_name,omitempty"`
	Tools      []fileTool `json:"tools"`
}

type fileTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is always written: a nil RawMessage encodes as null.
	InputSchema  json.RawMessage `json:"input_schema"`
	Title        string          `json:"title,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Icons        json.RawMessage `json:"icons,omitempty"`
}

// Load reads the baseline of server name under label ("" for a server that
// gave no name). One that is not there gives an error that matches
// ErrNotFound; a file that cannot be used gives the error check reports as
// the session's baseline error, in the reference's words.
func (s Store) Load(label, name string) (version int, tools []tooldef.Tool, err error) {
	if label == "" {
		return 0, nil, ErrNoLabel
	}
	path := s.PathFor(label, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return 0, nil, err
	}
	f, tools, err := decodeFile(label, data)
	if err == nil && f.ServerName != name {
		err = fmt.Errorf("tool baseline %q records server name %q, not %q; run mcpsnoop baseline --reset to record this one", label, f.ServerName, name)
	}
	if err != nil {
		return 0, nil, err
	}
	return f.Version, tools, nil
}

// decodeFile checks a file's version before its server: a newer version may
// not keep the server where this one looks for it.
func decodeFile(label string, data []byte) (file, []tooldef.Tool, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return f, nil, fmt.Errorf("tool baseline %q is corrupt (%v); run mcpsnoop baseline --reset to trust the next complete tools/list", label, err)
	}
	if f.Version < 1 || f.Version > Version {
		return f, nil, fmt.Errorf("tool baseline %q is version %d, newer than this mcpsnoop understands (%d); upgrade mcpsnoop, or run mcpsnoop baseline --reset to record it afresh", label, f.Version, Version)
	}
	if f.Server != label {
		return f, nil, fmt.Errorf("tool baseline %q records server %q; run mcpsnoop baseline --reset to record this one", label, f.Server)
	}
	tools := make([]tooldef.Tool, 0, len(f.Tools))
	for _, t := range f.Tools {
		def := tooldef.Tool{Name: t.Name, Description: t.Description, Title: t.Title}
		// The file is indented; tooldef.Tool values are canonical. The
		// whole file parsed, so canonicalising a part of it cannot fail.
		var err error
		if def.InputSchema, err = canonical(t.InputSchema); err == nil && def.InputSchema == nil {
			def.InputSchema = json.RawMessage("null") // a version 1 file may leave it out
		}
		if err == nil {
			def.OutputSchema, err = canonical(t.OutputSchema)
		}
		if err == nil {
			def.Annotations, err = canonical(t.Annotations)
		}
		if err == nil {
			def.Icons, err = canonical(t.Icons)
		}
		if err != nil {
			return f, nil, fmt.Errorf("tool baseline %q is corrupt (%v); run mcpsnoop baseline --reset to trust the next complete tools/list", label, err)
		}
		tools = append(tools, def)
	}
	return f, tools, nil
}

// encodeFile renders tools as a baseline of the version given (Version,
// or that of a file being moved) for server name under label: tools sorted
// by name, embedded values canonical and then indented with the rest,
// 2-space indent, no HTML escaping, trailing newline.
func encodeFile(version int, label, name string, tools []tooldef.Tool) ([]byte, error) {
	sorted := slices.Clone(tools)
	slices.SortStableFunc(sorted, func(a, b tooldef.Tool) int { return strings.Compare(a.Name, b.Name) })
	f := file{Version: version, Server: label, ServerName: name, Tools: make([]fileTool, 0, len(sorted))}
	for _, t := range sorted {
		ft := fileTool{Name: t.Name, Description: t.Description, Title: t.Title}
		var err error
		for _, v := range []struct {
			dst *json.RawMessage
			src json.RawMessage
		}{{&ft.InputSchema, t.InputSchema}, {&ft.OutputSchema, t.OutputSchema}, {&ft.Annotations, t.Annotations}, {&ft.Icons, t.Icons}} {
			if *v.dst, err = canonical(v.src); err != nil {
				return nil, fmt.Errorf("tool baseline %q: tool %q: %w", label, t.Name, err)
			}
		}
		f.Tools = append(f.Tools, ft)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("tool baseline %q: %w", label, err)
	}
	return buf.Bytes(), nil
}

// canonical canonicalises a stored value, keeping "not sent" (nil) as nil.
func canonical(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return tooldef.CanonicalJSON(raw)
}
