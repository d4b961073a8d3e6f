package junit

import (
	"encoding/xml"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// The junit types are not encoded as they are, because the spec's document
// differs from what their tags produce: Testsuites drops errors="0",
// failures="0" and skipped="0" (omitempty), Testsuite always writes id="0"
// and drops skipped="0", Testcase writes name before classname, and Result
// and Output write their text as CDATA, where encoding/xml lets control
// characters through. The mirror types below carry the same data with the
// spec's attribute order, the counts always present, the optional
// attributes only when set, and the text escaped (a newline becomes &#xA;).
// Suite ids are left out: the spec's document has none.

type xmlTestsuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr,omitempty"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Disabled int      `xml:"disabled,attr,omitempty"`
	Time     string   `xml:"time,attr,omitempty"`

	Suites []xmlTestsuite `xml:"testsuite"`
}

type xmlTestsuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Disabled  int    `xml:"disabled,attr,omitempty"`
	Time      string `xml:"time,attr,omitempty"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	Hostname  string `xml:"hostname,attr,omitempty"`
	Package   string `xml:"package,attr,omitempty"`
	File      string `xml:"file,attr,omitempty"`

	Properties *xmlProperties `xml:"properties,omitempty"`
	Testcases  []xmlTestcase  `xml:"testcase"`
	SystemOut  *xmlOutput     `xml:"system-out,omitempty"`
	SystemErr  *xmlOutput     `xml:"system-err,omitempty"`
}

// xmlProperties is a pointer in xmlTestsuite because a "properties>property"
// path writes an empty <properties> element even for a nil slice.
type xmlProperties struct {
	Property []xmlProperty `xml:"property"`
}

type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlTestcase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr,omitempty"`
	Status    string `xml:"status,attr,omitempty"`

	// Properties of a testcase (go-junit-report's Testcase has none): the
	// party a failing signal's findings blame.
	Properties *xmlProperties `xml:"properties,omitempty"`

	Skipped   *xmlResult `xml:"skipped,omitempty"`
	Error     *xmlResult `xml:"error,omitempty"`
	Failure   *xmlResult `xml:"failure,omitempty"`
	SystemOut *xmlOutput `xml:"system-out,omitempty"`
	SystemErr *xmlOutput `xml:"system-err,omitempty"`
}

type xmlResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Data    string `xml:",chardata"`
}

type xmlOutput struct {
	Data string `xml:",chardata"`
}

// encode writes doc as the spec's document: header, two-space indent,
// final newline.
func encode(w io.Writer, doc *junit.Testsuites) error {
	return encodeWith(w, doc, nil)
}

// caseProperties are testcase properties, by testcase name (a session id
// and a signal: unique within a document).
type caseProperties map[string][]junit.Property

// encodeWith is encode, with properties for some testcases.
func encodeWith(w io.Writer, doc *junit.Testsuites, props caseProperties) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(mirror(doc, props)); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// mirror converts doc to the mirror types, sanitising every string.
func mirror(doc *junit.Testsuites, props caseProperties) *xmlTestsuites {
	out := &xmlTestsuites{
		Name:     clean(doc.Name),
		Tests:    doc.Tests,
		Failures: doc.Failures,
		Errors:   doc.Errors,
		Skipped:  doc.Skipped,
		Disabled: doc.Disabled,
		Time:     clean(doc.Time),
	}
	for _, s := range doc.Suites {
		out.Suites = append(out.Suites, mirrorSuite(s, props))
	}
	return out
}

func mirrorSuite(s junit.Testsuite, props caseProperties) xmlTestsuite {
	out := xmlTestsuite{
		Name:      clean(s.Name),
		Tests:     s.Tests,
		Failures:  s.Failures,
		Errors:    s.Errors,
		Skipped:   s.Skipped,
		Disabled:  s.Disabled,
		Time:      clean(s.Time),
		Timestamp: clean(s.Timestamp),
		Hostname:  clean(s.Hostname),
		Package:   clean(s.Package),
		File:      clean(s.File),
		SystemOut: mirrorOutput(s.SystemOut),
		SystemErr: mirrorOutput(s.SystemErr),
	}
	if s.Properties != nil {
		out.Properties = mirrorProperties(*s.Properties)
	}
	for _, tc := range s.Testcases {
		out.Testcases = append(out.Testcases, xmlTestcase{
			Classname:  clean(tc.Classname),
			Name:       clean(tc.Name),
			Time:       clean(tc.Time),
			Status:     clean(tc.Status),
			Properties: mirrorProperties(props[tc.Name]),
			Skipped:    mirrorResult(tc.Skipped),
			Error:      mirrorResult(tc.Error),
			Failure:    mirrorResult(tc.Failure),
			SystemOut:  mirrorOutput(tc.SystemOut),
			SystemErr:  mirrorOutput(tc.SystemErr),
		})
	}
	return out
}

// mirrorProperties is nil for no properties: an empty <properties> is not
// written.
func mirrorProperties(ps []junit.Property) *xmlProperties {
	if len(ps) == 0 {
		return nil
	}
	out := &xmlProperties{}
	for _, p := range ps {
		out.Property = append(out.Property, xmlProperty{Name: clean(p.Name), Value: clean(p.Value)})
	}
	return out
}

func mirrorResult(r *junit.Result) *xmlResult {
	if r == nil {
		return nil
	}
	return &xmlResult{Message: clean(r.Message), Type: clean(r.Type), Data: clean(r.Data)}
}

func mirrorOutput(o *junit.Output) *xmlOutput {
	if o == nil {
		return nil
	}
	return &xmlOutput{Data: clean(o.Data)}
}

// clean removes the characters XML 1.0 does not allow: C0 controls other
// than tab, newline and carriage return, and U+FFFE/U+FFFF. Invalid UTF-8
// becomes U+FFFD, as encoding/xml would write it anyway. (Surrogates cannot
// occur: Go decodes them as invalid UTF-8.)
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteRune(utf8.RuneError)
				continue
			}
		}
		if allowed(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isClean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !allowed(r) {
			return false
		}
	}
	return true
}

func allowed(r rune) bool {
	if r < 0x20 {
		return r == '\t' || r == '\n' || r == '\r'
	}
	return r != 0xFFFE && r != 0xFFFF
}
