package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// An entry that holds comments (JSONC) is not re-encoded, which would drop
// them: its text is edited in place. Wrapping replaces the command's value
// and inserts the shim's flags, "--" and the old command at the front of
// args (adding an args member after command when there is none);
// unwrapping takes those words out again. Everything else in the entry,
// comments included, keeps its bytes.

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func applyEdits(data []byte, edits []edit) ([]byte, error) {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		if e.start < at || e.end < e.start {
			return nil, errors.New("overlapping edits")
		}
		out.Write(data[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}

// quote is a JSON string, with "<", ">" and "&" kept as they are.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimRight(buf.String(), "\n")
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quote(w)
	}
	return out
}

// newline is the file's line end.
func (d *doc) newline() string {
	if bytes.Contains(d.data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// entryMember finds the last member named key of the entry m, and lists
// the entry's members.
func (d *doc) entryMember(m member, key string) (member, []member, bool) {
	members, err := objectMembers(d.view, m.valStart)
	if err != nil {
		return member{}, nil, false
	}
	a, ok := lastMember(members, key)
	return a, members, ok
}

// wrapInPlace points the entry at binary and puts front before its args.
func (d *doc) wrapInPlace(m member, binary string, front []string) ([]byte, error) {
	cmd, _, ok := d.entryMember(m, "command")
	if !ok {
		return nil, errors.New("the entry has no command")
	}
	edits := []edit{{cmd.valStart, cmd.valEnd, quote(binary)}}
	words := quoteAll(front)
	args, _, hasArgs := d.entryMember(m, "args")
	switch {
	case hasArgs && d.view[args.valStart] == '[':
		elems := arrayElements(d.view, args.valStart)
		if len(elems) == 0 {
			edits = append(edits, edit{args.valStart + 1, args.valStart + 1, strings.Join(words, ", ")})
			break
		}
		sep := ", "
		if bytes.ContainsAny(d.data[args.valStart:elems[0].start], "\n\r") {
			sep = "," + d.newline() + lineIndent(d.data, elems[0].start)
		} else if len(elems) > 1 {
			between := d.data[elems[0].end:elems[1].start]
			if bytes.Equal(between, d.view[elems[0].end:elems[1].start]) {
				sep = string(between)
			}
		}
		edits = append(edits, edit{elems[0].start, elems[0].start, strings.Join(words, sep) + sep})
	case hasArgs: // null
		edits = append(edits, edit{args.valStart, args.valEnd, "[" + strings.Join(words, ", ") + "]"})
	default:
		lead := ", "
		if bytes.ContainsAny(d.data[m.valStart:cmd.keyStart], "\n\r") {
			lead = "," + d.newline() + lineIndent(d.data, cmd.keyStart)
		}
		edits = append(edits, edit{cmd.valEnd, cmd.valEnd, lead + `"args": [` + strings.Join(words, ", ") + "]"})
	}
	return applyEdits(d.data, edits)
}

// unwrapInPlace makes command the entry's command again and drops the
// first drop words of its args (the shim's flags, "--" and the command).
// When no args are left, an args member that can go without taking a
// comment along is removed; otherwise it becomes [].
func (d *doc) unwrapInPlace(m member, command string, drop int) ([]byte, error) {
	cmd, _, ok := d.entryMember(m, "command")
	args, members, hasArgs := d.entryMember(m, "args")
	if !ok || !hasArgs || d.view[args.valStart] != '[' {
		return nil, errors.New("the entry has no command or args")
	}
	edits := []edit{{cmd.valStart, cmd.valEnd, quote(command)}}
	elems := arrayElements(d.view, args.valStart)
	if drop < len(elems) {
		edits = append(edits, edit{elems[0].start, elems[drop].start, ""})
		return applyEdits(d.data, edits)
	}
	// No args left: remove the member with the comma before it (or after
	// it, when it comes first), if only white space stands there.
	i := slices.IndexFunc(members, func(x member) bool { return x.keyStart == args.keyStart })
	clean := func(from, to int) bool {
		gap := d.data[from:to]
		return bytes.Equal(gap, d.view[from:to]) && bytes.Count(gap, []byte(",")) == 1 &&
			len(bytes.Trim(gap, " \t\r\n,")) == 0
	}
	switch {
	case i > 0 && clean(members[i-1].valEnd, args.keyStart):
		edits = append(edits, edit{members[i-1].valEnd, args.valEnd, ""})
	case i == 0 && len(members) > 1 && clean(args.valEnd, members[1].keyStart):
		edits = append(edits, edit{args.keyStart, members[1].keyStart, ""})
	default:
		edits = append(edits, edit{args.valStart, args.valEnd, "[]"})
	}
	return applyEdits(d.data, edits)
}
