package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// DefaultIgnores are the parts of an answer that differ between any two
// runs of the same server, which a comparison leaves out unless told
// otherwise: the JSON-RPC id, progress tokens, MRTR request state, task
// ids and the timestamps the protocol defines, and the serverInfo a
// Modern server puts on each result (it names the build).
var DefaultIgnores = []string{
	"$.id",
	"$.._meta.progressToken",
	`$.._meta["io.modelcontextprotocol/serverInfo"]`,
	"$..requestState",
	"$..taskId",
	"$..createdAt",
	"$..lastUpdatedAt",
	"$..lastModified",
}

// Comparer compares two JSON-RPC answers after removing what it ignores.
type Comparer struct {
	paths       []*jsonpath.Path
	Ignores     []string // as given, defaults first
	IgnoreOrder bool
}

// NewComparer ignores DefaultIgnores (unless noDefaults) and the JSONPath
// expressions in ignore (RFC 9535; the leading $ may be left out). With
// ignoreOrder, arrays compare as multisets.
func NewComparer(ignore []string, noDefaults, ignoreOrder bool) (*Comparer, error) {
	c := &Comparer{IgnoreOrder: ignoreOrder}
	all := slices.Clone(ignore)
	if !noDefaults {
		all = append(slices.Clone(DefaultIgnores), ignore...)
	}
	for _, p := range all {
		jp, err := capture.ParseRedactPath(p)
		if err != nil {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner
			}
			return nil, fmt.Errorf("--ignore %q is not a JSONPath: %w", p, err)
		}
		c.paths = append(c.paths, jp)
		c.Ignores = append(c.Ignores, p)
	}
	return c, nil
}

// Change is one difference between two answers: a JSONPath and the value
// on each side as compact JSON ("" where the member is absent).
type Change struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// String is the change as every report writes it: `path: before -> after`,
// a side without the value reading (absent).
func (c Change) String() string {
	return c.Path + ": " + orAbsent(c.Before) + " -> " + orAbsent(c.After)
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// maxChanges is how many changes a comparison lists; the rest are counted.
const maxChanges = 10

// Diff lists what differs between two answers (whole JSON-RPC messages)
// once ignored parts are removed: at most maxChanges changes, and how many
// there were in all.
func (c *Comparer) Diff(before, after json.RawMessage) ([]Change, int) {
	a, b := c.normalize(before), c.normalize(after)
	d := differ{}
	d.walk("$", a, b, true, true)
	return d.changes, d.total
}

// ignored stands in for an array element an ignore path selected, so that
// the elements after it keep their places.
type ignored struct{}

func (c *Comparer) normalize(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return string(raw)
	}
	for _, p := range c.paths {
		nodes := p.SelectLocated(tree)
		// Deepest and last first, so removing one never moves another.
		sort.SliceStable(nodes, func(i, j int) bool { return len(nodes[i].Path) > len(nodes[j].Path) })
		for _, n := range nodes {
			tree = remove(tree, n.Path)
		}
	}
	if c.IgnoreOrder {
		tree = sortArrays(tree)
	}
	return tree
}

// remove deletes the member at path (an array element is replaced by
// ignored instead). A _meta object left empty goes too: a result whose
// only metadata was ignored reads like one that had none.
func remove(tree any, path spec.NormalizedPath) any {
	if len(path) == 0 {
		return ignored{}
	}
	cur := tree
	var parent map[string]any
	var parentKey string
	for i, sel := range path {
		last := i == len(path)-1
		switch s := sel.(type) {
		case spec.Name:
			m, ok := cur.(map[string]any)
			if !ok {
				return tree
			}
			if last {
				delete(m, string(s))
				if len(m) == 0 && parent != nil && parentKey == "_meta" {
					delete(parent, parentKey)
				}
				return tree
			}
			parent, parentKey = m, string(s)
			cur = m[string(s)]
		case spec.Index:
			a, ok := cur.([]any)
			if !ok || int(s) < 0 || int(s) >= len(a) {
				return tree
			}
			if last {
				a[s] = ignored{}
				return tree
			}
			parent, parentKey = nil, ""
			cur = a[s]
		default:
			return tree
		}
	}
	return tree
}

// sortArrays orders every array's elements by their canonical encoding.
func sortArrays(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortArrays(e)
		}
	case []any:
		for i, e := range x {
			x[i] = sortArrays(e)
		}
		sort.SliceStable(x, func(i, j int) bool { return bytes.Compare(canon(x[i]), canon(x[j])) < 0 })
	}
	return v
}

func canon(v any) []byte {
	if _, ok := v.(ignored); ok {
		return []byte{0}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps sort their keys
	return bytes.TrimRight(buf.Bytes(), "\n")
}

type differ struct {
	changes []Change
	total   int
}

func (d *differ) add(path string, a, b any, hasA, hasB bool) {
	d.total++
	if len(d.changes) >= maxChanges {
		return
	}
	ch := Change{Path: path}
	switch {
	case hasA && hasB:
		ch.Before, ch.After = around(canon(a), canon(b))
	case hasA:
		ch.Before = short(canon(a))
	case hasB:
		ch.After = short(canon(b))
	}
	d.changes = append(d.changes, ch)
}

func (d *differ) walk(path string, a, b any, hasA, hasB bool) {
	if !hasA || !hasB {
		d.add(path, a, b, hasA, hasB)
		return
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := make([]string, 0, len(ma)+len(mb))
		for k := range ma {
			keys = append(keys, k)
		}
		for k := range mb {
			if _, ok := ma[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			va, inA := ma[k]
			vb, inB := mb[k]
			d.walk(path+member(k), va, vb, inA, inB)
		}
		return
	}
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB {
		for i := range max(len(la), len(lb)) {
			var va, vb any
			if i < len(la) {
				va = la[i]
			}
			if i < len(lb) {
				vb = lb[i]
			}
			d.walk(path+"["+strconv.Itoa(i)+"]", va, vb, i < len(la), i < len(lb))
		}
		return
	}
	if !bytes.Equal(canon(a), canon(b)) {
		d.add(path, a, b, true, true)
	}
}

var shorthand = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// member is the JSONPath segment for key k: .k, or ['k'] when k is not a
// plain name.
func member(k string) string {
	if shorthand.MatchString(k) {
		return "." + k
	}
	q, _ := json.Marshal(k)
	return "[" + string(q) + "]"
}

// aroundChars is how many characters a changed value shows on each side
// of the first character where the two sides differ.
const aroundChars = 40

// around shows where two compact JSON values differ: each cut to the
// aroundChars characters before the first character that differs, that
// character and the aroundChars after it, with … where a cut was made. A
// long text changed deep inside then shows the change, not its start.
func around(a, b []byte) (string, string) {
	i := 0
	for i < len(a) && i < len(b) {
		_, na := utf8.DecodeRune(a[i:])
		_, nb := utf8.DecodeRune(b[i:])
		if na != nb || !bytes.Equal(a[i:i+na], b[i:i+nb]) {
			break
		}
		i += na
	}
	start := i
	for k := 0; k < aroundChars && start > 0; k++ {
		_, n := utf8.DecodeLastRune(a[:start])
		start -= n
	}
	return window(a, start, i), window(b, start, i)
}

// window is v from start to aroundChars characters past the one at i,
// with … at each end that was cut.
func window(v []byte, start, i int) string {
	end := i
	for k := 0; k <= aroundChars && end < len(v); k++ {
		_, n := utf8.DecodeRune(v[end:])
		end += n
	}
	s := string(v[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(v) {
		s += "…"
	}
	return s
}

// short cuts a compact JSON value that has nothing to be compared with (a
// member on one side only) to 80 bytes, on a character boundary.
func short(b []byte) string {
	const max = 80
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
