package wire

import (
	"strconv"
	"strings"
)

// Text is the finding as one line:
//
//	wire: tools/list result: /tools/3: missing property "name" (2025-11-25 ListToolsResult)
//
// Each issue gives its pointer within the value its definition describes
// (none for that value itself); an issue of another definition than the
// first names its own.
func (f *Finding) Text() string {
	var b strings.Builder
	b.WriteString("wire: ")
	b.WriteString(f.Subject)
	b.WriteString(": ")
	for i, is := range f.Issues {
		if i > 0 {
			b.WriteString("; ")
		}
		if is.Relative != "" {
			b.WriteString(is.Relative)
			b.WriteString(": ")
		}
		b.WriteString(is.Message)
		if is.Definition != f.Definition {
			b.WriteString(" (" + is.Definition + ")")
		}
	}
	if f.Omitted > 0 {
		b.WriteString("; and " + strconv.Itoa(f.Omitted) + " more")
	}
	if f.Stopped != "" {
		b.WriteString("; validation stopped " + f.Stopped)
	}
	b.WriteString(" (" + f.Revision + " " + f.Definition + ")")
	return b.String()
}

// Kind is the finding's fixed template: what identifies the same fault
// across captures (subject, first pointer and keyword, definition), without
// the values the message quotes.
func (f *Finding) Kind() string {
	first := f.Issues[0]
	return "wire: " + f.Subject + ": " + first.Relative + " " + first.Keyword + " (" + f.Revision + " " + f.Definition + ")"
}

// SpecURL is where the specification describes a definition of a
// revision: its schema reference page (2025-06-18 on), at the definition;
// for the revisions published before that page existed, the schema file
// itself.
func SpecURL(revision, definition string) string {
	if u, ok := eventsSpecURL(definition); ok {
		return u
	}
	if revision < "2025-06-18" {
		return SchemaFileURL(revision)
	}
	return "https://modelcontextprotocol.io/specification/" + revision + "/schema#" + strings.ToLower(definition)
}

// SchemaFileURL is the specification repository's schema.json of a
// revision, the file embedded here.
func SchemaFileURL(revision string) string {
	return "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/" + revision + "/schema.json"
}

// EventsDefinitionPrefix starts the name of a definition of the Events
// extension's schema in a finding.
const EventsDefinitionPrefix = "events."

// eventsURL is where the Events extension is specified.
const eventsURL = "https://modelcontextprotocol.io/extensions/events/overview"

// eventsSpecURL is the spec link of an Events definition.
func eventsSpecURL(definition string) (string, bool) {
	if !strings.HasPrefix(definition, EventsDefinitionPrefix) {
		return "", false
	}
	return eventsURL, true
}
