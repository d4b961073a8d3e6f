// Package known reads and writes the file of accepted findings that check
// takes with --known and writes with --write-known: one finding a line, by
// its SARIF fingerprint (spec/interfaces.md, SARIF), with the server label
// it was made for and a comment saying what it was.
//
//	# mcpsnoop known findings: check --known FILE; rewrite with --write-known FILE
//	3f2a9c0d1e2b4a5f "github" # mcpsnoop/error tools/call search_issues: tools/call search_issues (id 2) ended in an error: ...
//
// Blank lines and lines starting with # are comments. The label (a quoted
// string) and the comment are optional when writing the file by hand; an
// entry without a label is never reported stale, since it names no server.
// The checker decides what the entries mean (checker.KnownFindings); this
// package only turns them into lines and back.
package known

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Header is the first line Write puts in a file.
const Header = "# mcpsnoop known findings: check --known FILE accepts them; check --write-known FILE rewrites the file"

// Parse reads a known-findings file; name is how errors name it.
func Parse(data []byte, name string) ([]checker.KnownFinding, error) {
	var out []checker.KnownFinding
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, n, err)
		}
		e.Line = n
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

// parseLine reads `FINGERPRINT ["LABEL"] [# COMMENT]`.
func parseLine(line string) (checker.KnownFinding, error) {
	var e checker.KnownFinding
	fp, rest, _ := strings.Cut(line, " ")
	if i := strings.IndexByte(fp, '#'); i >= 0 { // "fp#comment"
		fp, rest = fp[:i], line[i:]
	}
	if !isFingerprint(fp) {
		return e, fmt.Errorf("%s is not a fingerprint (16 hex digits, as in SARIF's partialFingerprints)", strconv.Quote(termsafe.Clean(fp, false)))
	}
	e.Fingerprint = strings.ToLower(fp)
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, `"`) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return e, fmt.Errorf("the server label is not a quoted string: %s", termsafe.Clean(rest, false))
		}
		e.Label, _ = strconv.Unquote(q)
		rest = strings.TrimSpace(rest[len(q):])
	}
	switch {
	case rest == "":
	case rest[0] == '#':
		e.Note = strings.TrimSpace(rest[1:])
	default:
		return e, fmt.Errorf("unexpected %s after the fingerprint (a label is quoted, a comment starts with #)", strconv.Quote(termsafe.Clean(rest, false)))
	}
	return e, nil
}

func isFingerprint(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Write writes the known-findings file of rep: every finding of this check
// (rep.Fingerprints, in report order, each fingerprint once), keeping the
// comment an entry of old gave it, then the entries of old whose server no
// session of this check was labelled with, or that name none, as they
// were. So rewriting a file drops exactly its stale entries. An entry made
// under a checked server's old label gives way to the finding it accepted
// (its comment kept) and is dropped when it matched nothing; a first-seen
// baseline note of an earlier version is dropped.
func Write(w io.Writer, rep *checker.Report, old []checker.KnownFinding) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	notes := map[string]string{}
	for _, e := range old {
		if e.Note != "" {
			notes[e.Fingerprint] = e.Note
		}
	}
	checked := map[string]bool{}
	for _, s := range rep.Sessions {
		checked[s.Label] = true
	}
	if rep.Known != nil {
		for _, l := range rep.Known.OldLabels {
			checked[l] = true
		}
	}
	written := map[string]bool{}
	for _, f := range rep.Fingerprints {
		if written[f.Fingerprint] {
			continue
		}
		written[f.Fingerprint] = true
		note, ok := notes[f.Fingerprint]
		if !ok && f.Replaces != "" {
			note, ok = notes[f.Replaces]
		}
		if !ok {
			note = describe(f)
		}
		writeEntry(bw, checker.KnownFinding{Fingerprint: f.Fingerprint, Label: f.Label, Note: note})
	}
	var kept []checker.KnownFinding
	for _, e := range old {
		if e.RecordsBaseline() {
			continue
		}
		if !written[e.Fingerprint] && (e.Label == "" || !checked[e.Label]) {
			written[e.Fingerprint] = true
			kept = append(kept, e)
		}
	}
	if len(kept) > 0 {
		fmt.Fprintln(bw, "# kept: servers this check did not see")
		for _, e := range kept {
			writeEntry(bw, e)
		}
	}
	return bw.Flush()
}

// describe is the comment of a new entry: the rule, the call, and what the
// finding said (or its template, when the report did not keep it).
func describe(f checker.FingerprintEntry) string {
	parts := []string{f.Rule}
	if call := strings.TrimSpace(f.Method + " " + f.Tool); call != "" {
		parts = append(parts, call)
	}
	text := f.Text
	if text == "" {
		text = f.Kind
	}
	return strings.Join(parts, " ") + ": " + text
}

// writeEntry writes one line; what came from a log is escaped, so that an
// entry stays one line.
func writeEntry(w io.Writer, e checker.KnownFinding) {
	line := e.Fingerprint
	if e.Label != "" {
		line += " " + strconv.Quote(e.Label)
	}
	if e.Note != "" {
		line += " # " + termsafe.Clean(e.Note, false)
	}
	fmt.Fprintln(w, line)
}
