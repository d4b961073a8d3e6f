package capture

import (
	"strconv"
	"strings"
)

// PyprojectName is the `name` of the [project] table of a pyproject.toml
// (PEP 621), or "" when the file gives none. It reads only what that takes:
// table headers, `name = "..."` or `name = '...'` lines (the key may be
// quoted, a comment may follow), a top-level `project.name = ...`, and it
// steps over multi-line strings, so that a """ description cannot hide a
// fake table. Anything else in the file is never interpreted, which keeps
// a TOML library out of the shim.
func PyprojectName(data []byte) string {
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\uFEFF")
	table := "" // the table the current line is in; "" is the root
	inMultiline := ""
	for line := range strings.SplitSeq(text, "\n") {
		if inMultiline != "" {
			if strings.Count(line, inMultiline)%2 == 1 {
				inMultiline = ""
			}
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			table = tableName(t)
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(val, q)%2 == 1 {
				inMultiline = q
			}
		}
		if inMultiline != "" {
			continue
		}
		if (table == "project" && dottedKey(key) == "name") || (table == "" && dottedKey(key) == "project.name") {
			return tomlString(val)
		}
	}
	return ""
}

// tableName is the name of a [table] header with its parts unquoted and
// joined by "."; an [[array of tables]] gets a name no lookup asks for.
func tableName(header string) string {
	if strings.HasPrefix(header, "[[") {
		return "[["
	}
	end := strings.IndexByte(header, ']')
	if end < 0 {
		return "["
	}
	return dottedKey(header[1:end])
}

// dottedKey is a TOML key with its dot-separated parts trimmed and
// unquoted: `"project" . name` is "project.name".
func dottedKey(key string) string {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// tomlString is the value of a one-line TOML string followed by nothing
// but a comment: "basic" (escapes decoded) or 'literal'; "" otherwise.
func tomlString(val string) string {
	if len(val) < 2 {
		return ""
	}
	var s, rest string
	switch val[0] {
	case '\'':
		end := strings.IndexByte(val[1:], '\'')
		if end < 0 {
			return ""
		}
		s, rest = val[1:end+1], val[end+2:]
	case '"':
		q, err := strconv.QuotedPrefix(val)
		if err != nil {
			return ""
		}
		if s, err = strconv.Unquote(q); err != nil {
			return ""
		}
		rest = val[len(q):]
	default:
		return ""
	}
	if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
		return ""
	}
	return s
}
