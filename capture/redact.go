package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/internal/jsondup"
	"github.com/mcpsnoop/mcpsnoop/internal/secrets"
	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// RedactedValue replaces whatever a redaction rule removes.
const RedactedValue = "[REDACTED]"

// SecretKeys are the names --redact-secrets adds to the key rules: the
// catalogue's (package internal/secrets, docs/reference/secrets.md),
// matched without regard to case, '-' or '_'.
var SecretKeys = secrets.Keys

// RedactOptions are the redaction rules of a capture or a read.
type RedactOptions struct {
	// Secrets adds the catalogue of package internal/secrets: its names
	// as key rules (SecretKeys, compared without regard to case, '-' or
	// '_') and its credential formats as value patterns.
	Secrets bool
	Keys    []string // object keys, compared case-insensitively; "a,b" lists are split
	Values  []string // RE2 patterns: every match in a string value or a text line
	Paths   []string // RFC 9535 JSONPath queries over the message; the leading $ may be left out
}

// Redactor scrubs frames before anything keeps them. The zero of its use is
// a nil *Redactor, which changes nothing.
//
// What each rule reaches (spec: capture-store-export.md section 10): key
// rules replace the value of a matching key at any depth of the message,
// and in any array the value of a --flag=value or --flag value pair naming
// such a key (the meta frame's command line); value patterns replace their
// matches in every string value, in text lines and in Mcp-Param-* headers;
// paths replace what they select. Keys inside the inputSchema and
// outputSchema of a tools/list result are schema vocabulary, not data: key
// rules skip them (value patterns too, for the values of "type" and
// "x-mcp-header"), except under default, const, examples and enum.
type Redactor struct {
	keys     map[string]bool // lowercased
	flagKeys map[string]bool // lowercased, "-" as "_": how a --flag-name names a key
	secrets  bool            // the catalogue's names and formats too (internal/secrets)
	values   []*regexp.Regexp
	paths    []*jsonpath.Path
}

// NewRedactor compiles o. It returns nil, nil when o has no rule.
func NewRedactor(o RedactOptions) (*Redactor, error) {
	r := &Redactor{keys: map[string]bool{}, flagKeys: map[string]bool{}, secrets: o.Secrets}
	for _, list := range o.Keys {
		for k := range strings.SplitSeq(list, ",") {
			if k = strings.TrimSpace(k); k != "" {
				r.keys[strings.ToLower(k)] = true
				r.flagKeys[flagKey(k)] = true
			}
		}
	}
	for _, v := range o.Values {
		if v == "" {
			continue
		}
		re, err := regexp.Compile(v)
		if err != nil {
			return nil, fmt.Errorf("invalid redact pattern %q: %w", v, err)
		}
		r.values = append(r.values, re)
	}
	for _, p := range o.Paths {
		jp, err := ParseRedactPath(p)
		if err != nil {
			return nil, err
		}
		r.paths = append(r.paths, jp)
	}
	if !r.secrets && len(r.keys) == 0 && len(r.values) == 0 && len(r.paths) == 0 {
		return nil, nil
	}
	return r, nil
}

// isKey reports whether an object key (or a name in text) is one a key
// rule names.
func (r *Redactor) isKey(name string) bool {
	return r.keys[strings.ToLower(name)] || (r.secrets && secrets.IsKey(name))
}

// isFlag reports whether a command-line flag (its leading dashes gone)
// or a header's suffix names a key.
func (r *Redactor) isFlag(name string) bool {
	return r.flagKeys[flagKey(name)] || (r.secrets && secrets.IsKey(name))
}

// hasKeys reports whether r has key rules.
func (r *Redactor) hasKeys() bool { return r.secrets || len(r.keys) > 0 }

// hasPatterns reports whether r has value patterns.
func (r *Redactor) hasPatterns() bool { return r.secrets || len(r.values) > 0 }

// ParseRedactPath parses a JSONPath redaction rule. Like other capture
// tools it takes the leading "$" as optional ("params.a", "@.params.a" and
// "$.params.a" are the same path).
func ParseRedactPath(p string) (*jsonpath.Path, error) {
	q := strings.TrimSpace(p)
	switch {
	case q == "":
		return nil, fmt.Errorf("invalid redact JSONPath %q: empty", p)
	case q[0] == '$':
	case q[0] == '@':
		q = "$" + q[1:]
	case q[0] == '.' || q[0] == '[':
		q = "$" + q
	default:
		q = "$." + q
	}
	jp, err := jsonpath.Parse(q)
	if err != nil {
		return nil, fmt.Errorf("invalid redact JSONPath %q: %w", p, err)
	}
	return jp, nil
}

func flagKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "-", "_")
}

// Apply scrubs f in place and reports whether anything changed; a changed
// frame gets Redacted. Key rules and value patterns replace values where
// they stand (redactwalk.go); a path rule that selects anything has the
// message re-encoded from a parsed tree: keys sorted, numbers as written,
// no HTML escaping. An unchanged frame keeps its bytes.
func (r *Redactor) Apply(f *Frame) bool {
	if r == nil {
		return false
	}
	changed := false
	headers := len(f.McpParamHeaders) > 0 || f.McpName != ""
	var removed map[string]bool
	var scrubbedRaw []byte
	if len(f.Raw) > 0 {
		switch out, rem, res := r.scrubJSON(f.Raw, headers, f.Direction == Meta); res {
		case scrubbed:
			f.Raw, removed, scrubbedRaw = out, rem, out
			changed = true
		case scrubUnchanged:
			removed, scrubbedRaw = rem, f.Raw
		case scrubGaveUp:
			// The rules cannot be applied within the budget (or at all):
			// keep only what says what the message was. Headers that may
			// mirror its arguments go too.
			f.Raw, f.RedactionSkipped = withhold(f.Raw), true
			changed = true
			if r.scrubAllHeaders(f) {
				headers = false
			}
		}
	}
	if f.Text != "" {
		if r.structural() && tooDeep(f.Text) {
			// JSON nested past what any parser here takes (it was logged
			// as text for that): no rule can walk it, and the tolerant
			// scan knows nothing of paths. Withheld, never kept as is.
			f.Text, f.RedactionSkipped = RedactedValue, true
			changed = true
		} else if r.structural() && json.Valid([]byte(f.Text)) {
			// JSON logged as text (its bytes are not valid UTF-8, or it
			// nests too deep to be kept as raw): key and path rules reach
			// it too.
			switch out, _, res := r.scrubJSON([]byte(f.Text), false, false); res {
			case scrubbed:
				f.Text = string(out)
				changed = true
			case scrubGaveUp:
				f.Text, f.RedactionSkipped = RedactedValue, true
				changed = true
			}
		} else if r.structural() && f.Truncated {
			// A cut-off message cannot be parsed, so key rules cannot find
			// what they must hide in it: keep none of it.
			f.Text = RedactedValue
			changed = true
		} else if s, ok := r.scrubKeyValues(f.Text); ok {
			// Almost JSON, or a line that quotes some, or a command line:
			// the tolerant scan finds key/value pairs all the same.
			f.Text = s
			changed = true
		}
		if s, ok := r.scrubString(f.Text); ok {
			f.Text = s
			changed = true
		}
	}
	if headers && r.scrubHeaders(f, removed, scrubbedRaw) {
		changed = true
	}
	if changed {
		f.Redacted = true
	}
	return changed
}

// What scrubJSON did.
const (
	scrubUnchanged = iota // nothing to hide
	scrubbed              // out is the message with the rules applied
	scrubGaveUp           // the rules cannot be applied: over the budget, or too deep to parse
)

// scrubJSON applies paths, then key rules and value patterns, to a raw
// message. With track, it also returns the scalars removed wholesale.
func (r *Redactor) scrubJSON(raw []byte, track, cmdline bool) (out []byte, removed map[string]bool, result int) {
	if !validJSON(raw) {
		return nil, nil, scrubGaveUp
	}
	result = scrubUnchanged
	if len(r.paths) > 0 {
		var res int
		out, removed, res = r.scrubPaths(raw, track)
		switch res {
		case scrubGaveUp:
			return nil, nil, scrubGaveUp
		case scrubbed:
			raw, result = out, scrubbed
		}
	}
	if r.hasKeys() || r.hasPatterns() {
		if o, rem := r.scrubRaw(raw, track, cmdline); o != nil {
			raw, result = o, scrubbed
			for k := range rem {
				if removed == nil {
					removed = map[string]bool{}
				}
				removed[k] = true
			}
		} else if removed == nil {
			removed = rem
		}
	}
	if result != scrubbed {
		return nil, removed, scrubUnchanged
	}
	return raw, removed, scrubbed
}

// scrubPaths applies the path rules to a parsed copy of raw, within the
// budget (redactbudget.go), and re-encodes it when a path selected
// anything (or when the bytes hold a key twice, which the tree would have
// hidden from the paths).
func (r *Redactor) scrubPaths(raw []byte, track bool) (out []byte, removed map[string]bool, result int) {
	if r.overBudget(raw) {
		return nil, nil, scrubGaveUp
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return nil, nil, scrubGaveUp
	}
	if track {
		removed = map[string]bool{}
	}
	changed := false
	for _, p := range r.paths {
		for _, n := range p.SelectLocated(tree) {
			if removed != nil {
				collectScalars(n.Node, removed)
			}
			tree = replaceAt(tree, n.Path)
			changed = true
		}
	}
	if !changed && !jsondup.Has(raw) {
		return nil, removed, scrubUnchanged
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(tree) != nil {
		return nil, nil, scrubGaveUp
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), removed, scrubbed
}

// replaceAt puts the placeholder at path in tree and returns the new tree
// (the placeholder itself for the root). A path through a value an earlier
// rule already replaced leads nowhere and changes nothing.
func replaceAt(tree any, path spec.NormalizedPath) any {
	if len(path) == 0 {
		return RedactedValue
	}
	cur := tree
	for i, sel := range path {
		last := i == len(path)-1
		switch s := sel.(type) {
		case spec.Name:
			m, ok := cur.(map[string]any)
			if !ok {
				return tree
			}
			if _, exists := m[string(s)]; !exists {
				return tree
			}
			if last {
				m[string(s)] = RedactedValue
				return tree
			}
			cur = m[string(s)]
		case spec.Index:
			a, ok := cur.([]any)
			if !ok || int(s) < 0 || int(s) >= len(a) {
				return tree
			}
			if last {
				a[s] = RedactedValue
				return tree
			}
			cur = a[s]
		default:
			return tree
		}
	}
	return tree
}

// Where the walk is in a message, for the schema exemption.
const (
	stateRoot   = iota // the message (or a batch element)
	stateResult        // its result
	stateTools         // result.tools
	stateTool          // one tool definition
	stateData          // anything else that is data
	stateSchema        // inside a tool's inputSchema or outputSchema
)

// childState is the state of the value under key k of an object in state.
func childState(state int, k string) int {
	switch state {
	case stateRoot:
		if k == "result" {
			return stateResult
		}
	case stateResult:
		if k == "tools" {
			return stateTools
		}
	case stateTool:
		if k == "inputSchema" || k == "outputSchema" {
			return stateSchema
		}
	case stateSchema:
		switch k {
		case "default", "const", "examples", "enum":
			return stateData
		}
		return stateSchema
	}
	return stateData
}

// collectScalars adds the text of every string, number and boolean in v.
func collectScalars(v any, into map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for _, val := range t {
			collectScalars(val, into)
		}
	case []any:
		for _, val := range t {
			collectScalars(val, into)
		}
	case string:
		into[t] = true
	case json.Number:
		into[string(t)] = true
	case bool:
		if t {
			into["true"] = true
		} else {
			into["false"] = true
		}
	}
}

// scrubString replaces every match of every value pattern in s.
func (r *Redactor) scrubString(s string) (string, bool) {
	out := s
	for _, re := range r.values {
		// Matching first: a replacement copies the text even when
		// nothing matches.
		if re.MatchString(out) {
			out = re.ReplaceAllLiteralString(out, RedactedValue)
		}
	}
	if r.secrets {
		out, _ = secrets.Replace(out, RedactedValue)
	}
	return out, out != s
}

// scrubHeaders applies the header rules of an HTTP request frame: an
// Mcp-Param-* value is replaced when its header names a redact key, or when
// it mirrors a value removed from the body that no longer occurs there;
// value patterns replace their matches in it. Mcp-Name is replaced only as
// such a mirror.
func (r *Redactor) scrubHeaders(f *Frame, removed map[string]bool, body []byte) bool {
	changed := false
	// The removed scalars a header may mirror, and which of them the
	// scrubbed body still holds elsewhere.
	want := map[string]bool{}
	if len(removed) > 0 {
		for _, v := range append([]string{f.McpName}, headerValues(f)...) {
			if d := decodeSentinel(v); removed[d] {
				want[d] = true
			}
		}
	}
	var remaining map[string]bool
	if len(want) > 0 && len(body) > 0 {
		remaining = scalarsPresent(body, want)
	}
	mirrors := func(v string) bool {
		d := decodeSentinel(v)
		return removed[d] && !remaining[d]
	}
	if f.McpName != "" && f.McpName != RedactedValue && mirrors(f.McpName) {
		f.McpName = RedactedValue
		changed = true
	}
	for i := range f.McpParamHeaders {
		h := &f.McpParamHeaders[i]
		if h.Value == RedactedValue {
			continue
		}
		name := strings.ToLower(h.Name)
		suffix := strings.TrimPrefix(name, "mcp-param-")
		if (suffix != name && r.isFlag(suffix)) || mirrors(h.Value) {
			h.Value, h.Redacted = RedactedValue, true
			changed = true
			continue
		}
		if s, ok := r.scrubString(h.Value); ok {
			h.Value, h.Redacted = s, true
			changed = true
		}
	}
	return changed
}

// headerValues are the frame's Mcp-Param-* values.
func headerValues(f *Frame) []string {
	out := make([]string, len(f.McpParamHeaders))
	for i, h := range f.McpParamHeaders {
		out[i] = h.Value
	}
	return out
}

// scrubAllHeaders replaces every Mcp-Param-* value and Mcp-Name of a
// message that was withheld: they may mirror arguments no rule could be
// applied to. It reports whether there were any.
func (r *Redactor) scrubAllHeaders(f *Frame) bool {
	any := f.McpName != ""
	if f.McpName != "" {
		f.McpName = RedactedValue
	}
	for i := range f.McpParamHeaders {
		f.McpParamHeaders[i].Value, f.McpParamHeaders[i].Redacted = RedactedValue, true
		any = true
	}
	return any
}

// decodeSentinel undoes the =?base64?...?= encoding of a header value.
func decodeSentinel(v string) string {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return v
	}
	return string(b)
}

// Command returns a command line as the meta frame records it: redacted
// the same way, so messages that show it (the shim's banner) leak nothing
// the log keeps out.
func (r *Redactor) Command(argv []string) []string {
	if r == nil {
		return argv
	}
	raw, err := json.Marshal(map[string][]string{"command": argv})
	if err != nil {
		return argv
	}
	f := Frame{Raw: raw, Direction: Meta}
	if !r.Apply(&f) {
		return argv
	}
	if f.RedactionSkipped {
		return []string{RedactedValue}
	}
	var m struct {
		Command []string `json:"command"`
	}
	if json.Unmarshal(f.Raw, &m) != nil {
		return argv
	}
	return m.Command
}

// structural reports whether r has key or path rules, the ones that need a
// parsed message.
func (r *Redactor) structural() bool {
	return r.hasKeys() || len(r.paths) > 0
}
