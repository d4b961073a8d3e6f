package tooldef

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What changed, not only that something did: a drift entry carries the old
// and new description or title, each annotation hint that changed with its
// two values, and for a schema the property paths added, removed and
// changed, so that a reviewer can decide on `baseline --accept` from a CI
// log.

// HintChange is one annotation whose value changed. Values are JSON text
// after the spec defaults are filled in ("true", "false"); "" means the
// key is absent (for keys that are not hints).
type HintChange struct {
	Hint   string `json:"hint"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// SchemaChange lists the property paths of a schema that were added,
// removed or changed, sorted. A path joins property names with ".", an
// array's items add "[]"; "" is the schema's root (its type, its other
// keywords). A property's own definition includes whether its parent
// requires it, so a property that became required is changed.
type SchemaChange struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// describe fills in what changed for an entry of kind between b and a.
func describe(e *DriftEntry, b, a Tool) {
	switch e.Kind {
	case DriftDescription:
		e.Before, e.After = ptr(b.Description), ptr(a.Description)
	case DriftTitle:
		e.Before, e.After = ptr(b.Title), ptr(a.Title)
	case DriftAnnotations:
		e.Hints = hintChanges(b.Annotations, a.Annotations)
	case DriftInputSchema:
		e.Schema = schemaChange(driftSchemaForm(b.InputSchema), driftSchemaForm(a.InputSchema))
	case DriftOutputSchema:
		e.Schema = schemaChange(driftSchemaForm(b.OutputSchema), driftSchemaForm(a.OutputSchema))
	}
}

func ptr(s string) *string { return &s }

// hintChanges compares two annotations values key by key, after defaults.
// A value that is not an object is compared whole, as "(annotations)".
func hintChanges(before, after json.RawMessage) []HintChange {
	b, bok := annotationsMap(before)
	a, aok := annotationsMap(after)
	if !bok || !aok {
		return []HintChange{{Hint: "(annotations)", Before: string(driftAnnotationsForm(before)), After: string(driftAnnotationsForm(after))}}
	}
	keys := make([]string, 0, len(b)+len(a))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, hintOrder)
	var out []HintChange
	for _, k := range keys {
		if bv, av := b[k], a[k]; bv != av {
			out = append(out, HintChange{Hint: k, Before: bv, After: av})
		}
	}
	return out
}

// hintOrder puts the four spec hints first, in the spec's order, then the
// other keys by name.
func hintOrder(x, y string) int {
	rank := func(k string) int {
		if i := slices.Index(hintNames, k); i >= 0 {
			return i
		}
		return len(hintNames)
	}
	if rx, ry := rank(x), rank(y); rx != ry {
		return rx - ry
	}
	return strings.Compare(x, y)
}

var hintNames = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// annotationsMap is each annotation's canonical JSON, defaults filled in.
func annotationsMap(raw json.RawMessage) (map[string]string, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(driftAnnotationsForm(raw), &m); err != nil || m == nil {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out, true
}

// schemaChange compares two schemas (as driftSchemaForm gives them)
// property by property.
func schemaChange(before, after []byte) *SchemaChange {
	b, a := flattenSchema(before), flattenSchema(after)
	c := &SchemaChange{Added: []string{}, Removed: []string{}, Changed: []string{}}
	for p, def := range a {
		switch old, ok := b[p]; {
		case !ok:
			c.Added = append(c.Added, p)
		case old != def:
			c.Changed = append(c.Changed, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			c.Removed = append(c.Removed, p)
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	slices.Sort(c.Changed)
	return c
}

// flattenSchema maps each property path of a schema to its own definition
// (canonical JSON, without the nested properties, which have paths of
// their own). A schema that does not decode is its root alone.
func flattenSchema(raw []byte) map[string]string {
	out := map[string]string{}
	x, err := canonicalDecode(raw)
	if err != nil {
		out[""] = string(raw)
		return out
	}
	flatten(x, "", false, out)
	return out
}

func flatten(x any, path string, required bool, out map[string]string) {
	m, isObj := x.(map[string]any)
	if !isObj {
		out[path] = encodeOwn(x, required)
		return
	}
	own := make(map[string]any, len(m))
	for k, v := range m {
		own[k] = v
	}
	props, _ := m["properties"].(map[string]any)
	if props != nil {
		delete(own, "properties")
		delete(own, "required")
	}
	items, _ := m["items"].(map[string]any)
	if items != nil {
		delete(own, "items")
	}
	out[path] = encodeOwn(own, required)
	if props != nil {
		req := map[string]bool{}
		if list, ok := m["required"].([]any); ok {
			for _, r := range list {
				if s, ok := r.(string); ok {
					req[s] = true
				}
			}
		}
		if _, ok := m["required"]; ok && len(req) == 0 {
			own["required"] = m["required"] // not a list of names: keep it whole
			out[path] = encodeOwn(own, required)
		}
		for name, sub := range props {
			p := name
			if path != "" {
				p = path + "." + name
			}
			flatten(sub, p, req[name], out)
		}
	}
	if items != nil {
		flatten(items, path+"[]", false, out)
	}
}

// encodeOwn is a definition as compared; required marks a property its
// parent requires.
func encodeOwn(x any, required bool) string {
	b, err := canonicalEncode(x)
	if err != nil {
		return ""
	}
	if required {
		return "required " + string(b)
	}
	return string(b)
}

// Detail says what changed in one line: `"old" → "new"` for a description
// or title (a long pair shown around where they differ), `readOnlyHint
// false → true` for annotations, `added a, b; removed c; changed d` for a
// schema (at most ten paths each, then how many more); "" when there is
// nothing to say (added, removed, icons). Text comes from tool definitions:
// a terminal needs it escaped.
func (e DriftEntry) Detail() string {
	switch {
	case e.Before != nil && e.After != nil:
		b, a := elide(*e.Before, *e.After)
		return b + " → " + a
	case len(e.Hints) > 0:
		parts := make([]string, len(e.Hints))
		for i, h := range e.Hints {
			parts[i] = h.Hint + " " + orAbsent(h.Before) + " → " + orAbsent(h.After)
		}
		return strings.Join(parts, ", ")
	case e.Schema != nil:
		var parts []string
		for _, l := range []struct {
			word  string
			paths []string
		}{{"added", e.Schema.Added}, {"removed", e.Schema.Removed}, {"changed", e.Schema.Changed}} {
			if len(l.paths) > 0 {
				parts = append(parts, l.word+" "+pathList(l.paths))
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

func orAbsent(v string) string {
	if v == "" {
		return "absent"
	}
	return v
}

// pathList joins at most ten paths, naming the root "(root)".
func pathList(paths []string) string {
	const most = 10
	shown := paths
	if len(shown) > most {
		shown = shown[:most]
	}
	names := make([]string, len(shown))
	for i, p := range shown {
		if p == "" {
			p = "(root)"
		}
		names[i] = p
	}
	s := strings.Join(names, ", ")
	if n := len(paths) - len(shown); n > 0 {
		s += " and " + strconv.Itoa(n) + " more"
	}
	return s
}

// elideAt is how long a quoted value may be before elide shortens it.
const elideAt = 120

// elideContext is how much unchanged text elide keeps around a change.
const elideContext = 30

// elide quotes two strings; when either is long, both are cut down to
// where they differ, with some context, "…" marking what was left out.
func elide(b, a string) (string, string) {
	if len(b) <= elideAt && len(a) <= elideAt {
		return strconv.Quote(b), strconv.Quote(a)
	}
	pre := commonPrefix(b, a)
	suf := commonSuffix(b[pre:], a[pre:])
	start := backRunes(b, pre, elideContext)
	return quoteCut(b, start, len(b)-suf), quoteCut(a, start, len(a)-suf)
}

// quoteCut quotes s[start:end] with some context after end, marking the
// cuts.
func quoteCut(s string, start, end int) string {
	stop := forwardRunes(s, end, elideContext)
	const most = elideAt
	mid := s[start:stop]
	cutMid := false
	if len(mid) > most {
		mid = mid[:backRunes(mid, most, 0)]
		cutMid = true
	}
	q := strconv.Quote(mid)
	if start > 0 {
		q = "…" + q
	}
	if cutMid || stop < len(s) {
		q += "…"
	}
	return q
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	for i > 0 && !utf8.RuneStart(a[len(a)-i]) {
		i--
	}
	return i
}

// backRunes is the index n runes before i in s (0 at most), on a rune
// start; with n 0, the rune start at or before i.
func backRunes(s string, i, n int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// forwardRunes is the index n runes after i in s (len(s) at most).
func forwardRunes(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
