package schemacheck

import (
	"slices"
	"strings"
)

// The spec's source of truth is schema.ts; schema.json is generated from
// it and, in places, says less. Where a message that schema.ts allows is
// refused by schema.json, the schema is corrected in memory when a
// revision is loaded: the embedded files stay byte-identical to upstream
// (TestSchemaFilesUnchanged) and each correction is listed, with the
// schema.ts line it follows, in schemas/README.md.

// erratum corrects one node of one definition.
type erratum struct {
	revisions  []string
	definition string
	path       []string // keys from the definition down to the node
	fix        func(node any) bool
}

var errata = []erratum{
	{
		// schema.ts: content?: { [key: string]: string | number | boolean | string[] };
		// schema.json says "integer" where the union says number, so a
		// form answer of 3.5 or 95.5 was refused.
		revisions:  []string{"2025-06-18", "2025-11-25", "2026-07-28"},
		definition: "ElicitResult",
		path:       []string{"properties", "content", "additionalProperties"},
		fix:        func(node any) bool { return replaceType(node, "integer", "number") },
	},
}

// applyErrata corrects the revision's definitions; it reports the errata
// whose node was not found (a defect a test catches).
func applyErrata(rev string, defs map[string]any) []string {
	var missed []string
	for _, e := range errata {
		if !slices.Contains(e.revisions, rev) {
			continue
		}
		node := any(defs[e.definition])
		for _, key := range e.path {
			m, _ := node.(map[string]any)
			node = m[key]
		}
		if node == nil || !e.fix(node) {
			missed = append(missed, e.definition+"/"+strings.Join(e.path, "/"))
		}
	}
	return missed
}

// replaceType replaces the type from with to wherever a "type" keyword
// below node names it (as a string or in a list); it reports whether it
// replaced any.
func replaceType(node any, from, to string) bool {
	done := false
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch t := v.(type) {
			case string:
				if k == "type" && t == from {
					n[k], done = to, true
				}
			case []any:
				if k == "type" {
					for i, s := range t {
						if s == from {
							t[i], done = to, true
						}
					}
					continue
				}
				done = replaceType(t, from, to) || done
			default:
				done = replaceType(v, from, to) || done
			}
		}
	case []any:
		for _, v := range n {
			done = replaceType(v, from, to) || done
		}
	}
	return done
}
