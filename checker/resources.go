package checker

// W51 (SEP-2164): since 2026-07-28 a server answers a resources/read of a
// resource it does not have with -32602, not with empty contents. Judged
// against what the session listed: a URI in no resources/list answer that
// no listed template matches, read and answered with no contents. A
// session that never listed its resources is not judged (the client may
// know a URI the listing was never asked for).

import (
	"regexp"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/yosida95/uritemplate/v3"
)

// Bounds on what a session remembers of its resource listings.
const (
	maxListedURIs      = 10000
	maxListedTemplates = 1000
)

// resourceState is what a session's resource listings said.
type resourceState struct {
	listed    bool
	uris      map[string]bool
	templates []*regexp.Regexp
	overflow  bool // a listing held more than the bounds: nothing is judged
}

// onResourceLists remembers the URIs and templates a listing answer gives.
func (s *session) onResourceLists(fc *frameCtx, c *call) {
	m := &fc.msg
	if m.hasError || !m.hasResult {
		return
	}
	r := &s.res
	switch c.method {
	case "resources/list":
		r.listed = true
		m.resultField("resources").ForEach(func(_, v gjson.Result) bool {
			if u := v.Get("uri"); u.Type == gjson.String {
				if len(r.uris) >= maxListedURIs {
					r.overflow = true
					return false
				}
				if r.uris == nil {
					r.uris = map[string]bool{}
				}
				r.uris[clone(u.Str)] = true
			}
			return true
		})
	case "resources/templates/list":
		m.resultField("resourceTemplates").ForEach(func(_, v gjson.Result) bool {
			u := v.Get("uriTemplate")
			if u.Type != gjson.String {
				return true
			}
			if len(r.templates) >= maxListedTemplates {
				r.overflow = true
				return false
			}
			if t, err := uritemplate.New(u.Str); err == nil {
				r.templates = append(r.templates, t.Regexp())
			}
			return true
		})
	}
}

// emptyReadRule applies W51 to a resources/read answer.
func (s *session) emptyReadRule(fc *frameCtx, c *call) {
	m := &fc.msg
	r := &s.res
	if c.method != "resources/read" || !atLeast20260728(c.revision) || !r.listed || r.overflow ||
		m.hasError || !m.hasResult || m.resultType() == "input_required" {
		return
	}
	if contents := m.resultField("contents"); contents.Exists() && !(contents.IsArray() && len(contents.Array()) == 0) {
		return
	}
	uri := c.tool
	if r.uris[uri] {
		return
	}
	for _, t := range r.templates {
		if t.MatchString(uri) {
			return
		}
	}
	fc.warn("W51", "resources/read of <uri>, which no listing offers, answered with empty contents; 2026-07-28 requires -32602",
		"resources/read of "+strconv.Quote(s.serverWords(uri))+", which no listing offers, answered with empty contents; 2026-07-28 requires -32602")
}
