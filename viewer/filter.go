package viewer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Filter selects rows. It is a list of space-separated tokens, all of
// which must match (AND):
//
//	tool:NAME   t:   the call's tool or operation name contains NAME
//	method:M    m:   the method contains M
//	id:ID            the JSON-RPC id is ID: id:1 the number, id:"1" the string,
//	                 id:two the string "two"
//	dir:D       d:   c2s (client, in, req, ->), s2c (server, out, resp, <-), stderr (err), meta
//	kind:K      k:   req, resp, notify (ntf), stderr, invalid (corrupt, bad), transport, other
//	status:S    s:   pending, ok, err (error, fail), cancel (call_cancelled), late
//	                 (late_result), cancelled, superseded, streaming, warn, mismatch,
//	                 invalid (bad), or an HTTP status code such as 401
//	TEXT             the method, tool, id, warning, observation or payload contains TEXT
//
// Names and text match case-insensitively. The aliases are the ones the
// HTML export's search box takes (capture-store-export.md 7.4).
type Filter struct {
	terms []term
	src   string
}

type term struct {
	field string // tool, method, id, dir, kind, status, text
	value string // lowercased; for dir/kind/status the canonical name
	code  int    // status:NNN
}

// String is the filter as typed.
func (f Filter) String() string { return f.src }

// Empty reports whether the filter selects every row.
func (f Filter) Empty() bool { return len(f.terms) == 0 }

var fieldAliases = map[string]string{
	"tool": "tool", "t": "tool",
	"method": "method", "m": "method",
	"id":  "id",
	"dir": "dir", "d": "dir",
	"kind": "kind", "k": "kind",
	"status": "status", "s": "status",
}

var dirAliases = map[string]string{
	"c2s": "c2s", "client": "c2s", "in": "c2s", "req": "c2s", "->": "c2s",
	"s2c": "s2c", "server": "s2c", "out": "s2c", "resp": "s2c", "<-": "s2c",
	"stderr": "stderr", "err": "stderr",
	"meta": "meta",
}

var kindAliases = map[string]string{
	"req": checker.EventRequest, "request": checker.EventRequest,
	"resp": checker.EventResponse, "response": checker.EventResponse,
	"notify": checker.EventNotification, "ntf": checker.EventNotification, "notification": checker.EventNotification,
	"stderr":  checker.EventStderr,
	"invalid": checker.EventInvalid, "corrupt": checker.EventInvalid, "bad": checker.EventInvalid,
	"transport": checker.EventTransport,
	"other":     checker.EventOther,
}

var statusAliases = map[string]string{
	"pending": "pending",
	"ok":      "ok",
	"err":     "error", "error": "error", "fail": "error", "failed": "error",
	"cancel": "cancel", "call_cancelled": "cancel",
	"late": "late_result", "late_result": "late_result",
	"cancelled":  "cancelled",
	"superseded": "superseded",
	"streaming":  "streaming",
	"warn":       "warn", "warning": "warn",
	"mismatch": "mismatch",
	"invalid":  "invalid", "bad": "invalid",
}

// ParseFilter parses a filter expression. An unknown dir, kind or status
// value is an error naming it; an unknown field name ("foo:bar") is plain
// text.
func ParseFilter(s string) (Filter, error) {
	f := Filter{src: strings.TrimSpace(s)}
	for _, tok := range strings.Fields(s) {
		name, value, ok := strings.Cut(tok, ":")
		field := fieldAliases[strings.ToLower(name)]
		if !ok || field == "" {
			f.terms = append(f.terms, term{field: "text", value: strings.ToLower(tok)})
			continue
		}
		v := strings.ToLower(value)
		if v == "" {
			return Filter{}, fmt.Errorf("%s: give a value after the colon", tok)
		}
		t := term{field: field, value: v}
		switch field {
		case "dir":
			if t.value = dirAliases[v]; t.value == "" {
				return Filter{}, fmt.Errorf("%s: dir is c2s, s2c, stderr or meta", tok)
			}
		case "kind":
			if t.value = kindAliases[v]; t.value == "" {
				return Filter{}, fmt.Errorf("%s: kind is req, resp, notify, stderr, invalid, transport or other", tok)
			}
		case "status":
			if n, err := strconv.Atoi(v); err == nil && n >= 100 && n <= 599 {
				t.value, t.code = "http", n
			} else if t.value = statusAliases[v]; t.value == "" {
				return Filter{}, fmt.Errorf("%s: status is pending, ok, error, cancel, late, cancelled, superseded, streaming, warn, mismatch, invalid or an HTTP code", tok)
			}
		case "id":
			t.value = idTerm(value) // ids compare exactly, case included
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

// idTerm is the raw JSON id an id: term matches: id:1 the number 1 only,
// id:"1" the string "1" only, and a value that is no number (id:two) the
// string "two".
func idTerm(v string) string {
	if strings.HasPrefix(v, `"`) {
		return strconv.Quote(strings.Trim(v, `"`))
	}
	if c := v[0]; (c == '-' || c >= '0' && c <= '9') && json.Valid([]byte(v)) {
		return v
	}
	return strconv.Quote(v)
}

// Match reports whether r passes every term.
func (f Filter) Match(r *Row) bool {
	for i := range f.terms {
		if !f.terms[i].match(r) {
			return false
		}
	}
	return true
}

func (t *term) match(r *Row) bool {
	switch t.field {
	case "tool":
		return contains(r.Tool, t.value)
	case "method":
		return contains(r.Method, t.value)
	case "id":
		return r.ID != "" && r.ID == t.value
	case "dir":
		return r.Direction == t.value
	case "kind":
		return r.Kind == t.value
	case "status":
		return t.matchStatus(r)
	}
	// The short fields first; the body (raw JSON or text) only when none
	// of them matches.
	return contains(r.Method, t.value) || contains(r.Tool, t.value) || contains(r.ID, t.value) ||
		contains(r.Warning(), t.value) || contains(r.Observation(), t.value) ||
		contains(r.body, t.value)
}

func (t *term) matchStatus(r *Row) bool {
	st := r.Status()
	switch t.value {
	case "http":
		return r.HTTPStatus() == t.code
	case "error":
		return st == "error" || len(r.Errors()) > 0 || r.HTTPStatus() >= 400
	case "cancel":
		// Calls the client gave up on, answered late or not.
		return st == "call_cancelled" || st == "late_result"
	case "warn":
		return r.Warning() != ""
	case "mismatch":
		return r.Mismatch()
	case "invalid":
		return r.Kind == checker.EventInvalid
	}
	return st == t.value
}

// contains is a case-insensitive substring test; sub is lowercase. It
// allocates nothing: s is compared rune by rune, each lowered, so a match
// whose lower case is longer in bytes (Ⱥ lowers to ⱥ) is found; a string
// of ASCII only is compared byte by byte.
func contains(s, sub string) bool {
	if sub == "" {
		return true
	}
	if s == "" {
		return false
	}
	first, size := utf8.DecodeRuneInString(sub)
	if first < utf8.RuneSelf && isASCII(s) {
		// The fast path: one byte per character on both sides.
		for i := 0; i+len(sub) <= len(s); i++ {
			if lowerASCII(s[i]) == sub[0] && hasPrefixFoldASCII(s[i+1:], sub[1:]) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		if unicode.ToLower(c) == first && hasPrefixFold(s[i+n:], sub[size:]) {
			return true
		}
		i += n
	}
	return false
}

// hasPrefixFold reports whether s, lowered rune by rune, starts with the
// lowercase prefix.
func hasPrefixFold(s, prefix string) bool {
	for prefix != "" {
		if s == "" {
			return false
		}
		c, n := utf8.DecodeRuneInString(s)
		p, m := utf8.DecodeRuneInString(prefix)
		if unicode.ToLower(c) != p {
			return false
		}
		s, prefix = s[n:], prefix[m:]
	}
	return true
}

func hasPrefixFoldASCII(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
