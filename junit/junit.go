// Package junit renders a checker.Report as the JUnit XML document of
// `mcpsnoop check --format junit` (spec/check.md section 7).
//
// The document is modelled with go-junit-report's junit types (build.go)
// and written by encode.go, which fixes what those types would get wrong
// for this format when written with their own WriteXML: the XML header,
// two-space indentation, attribute order and presence (errors="0" and
// skipped="0" always, no id), escaped text instead of CDATA, and the
// removal of control characters that session ids and messages copied from
// untrusted logs may carry.
package junit

import (
	"errors"
	"io"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Options tune the document.
type Options struct {
	// LogName names standard input in the findings a failure lists
	// (check --log-name); "" shows it as "-".
	LogName string
}

// Write writes rep to w as a JUnit XML document: the XML header, the
// document indented by two spaces, and a final newline.
func Write(w io.Writer, rep *checker.Report, opts Options) error {
	if rep == nil {
		return errors.New("junit: nil report")
	}
	doc, props := build(rep, opts)
	return encodeWith(w, &doc, props)
}
