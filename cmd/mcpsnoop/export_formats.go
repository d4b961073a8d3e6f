package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/export/har"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
)

// exportFormats maps a -T name (lower case) to the constructor of its
// format.
var exportFormats = map[string]func() export.Format{
	"json": export.NewJSON,
	"text": export.NewText,
	"html": export.NewHTML,
	"har":  har.New,
	"otlp": otlp.New,
	// tools: the definitions each session listed, for other scanners.
	"tools": export.NewTools,
}

// lookupExportFormat finds a format by its -T name, case-insensitively and
// trimmed.
func lookupExportFormat(name string) (func() export.Format, error) {
	f, ok := exportFormats[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return nil, fmt.Errorf("unknown export format %q (want %s)", name, wantFormats())
	}
	return f, nil
}

// exportFormatOrder is how help and errors list the formats; names not in
// it follow in alphabetical order.
var exportFormatOrder = []string{"json", "html", "text", "har", "otlp", "tools"}

// exportFormatNames lists the registered formats.
func exportFormatNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, n := range exportFormatOrder {
		if exportFormats[n] != nil {
			names = append(names, n)
			seen[n] = true
		}
	}
	var rest []string
	for n := range exportFormats {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// wantFormats is the list for an error message: "json, html, text, har, or
// otlp".
func wantFormats() string {
	names := exportFormatNames()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + ", or " + names[len(names)-1]
}
