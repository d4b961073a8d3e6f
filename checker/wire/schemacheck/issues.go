package schemacheck

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// leaf is one failing keyword at one instance location.
type leaf struct {
	tokens  []string
	keyword string
	message string
	// discriminator: a const or enum that failed, the mark of an anyOf
	// branch written for another kind of value.
	discriminator bool
	want          []string // for a type or discriminator: what was wanted
	got           string
}

var printer = message.NewPrinter(language.English)

// flatten turns a validation error tree into its leaves, in instance
// order. An anyOf or oneOf that no branch matched is narrowed to the
// branch meant for the value, when one can be told: the one whose
// discriminating constants matched, with the fewest problems; else the
// alternatives are summed up in one leaf at the union's location.
func flatten(e *jsonschema.ValidationError) []leaf {
	out := collect(e)
	sort.SliceStable(out, func(i, j int) bool { return tokensBefore(out[i].tokens, out[j].tokens) })
	// One leaf per location and message.
	seen := map[string]bool{}
	kept := out[:0]
	for _, l := range out {
		k := pointer(l.tokens) + "\x00" + l.message
		if !seen[k] {
			seen[k] = true
			kept = append(kept, l)
		}
	}
	return kept
}

func collect(e *jsonschema.ValidationError) []leaf {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []leaf
		for _, c := range e.Causes {
			out = append(out, collect(c)...)
		}
		return out
	case *kind.AnyOf:
		return alternatives(e, "anyOf")
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			return []leaf{{tokens: e.InstanceLocation, keyword: "oneOf",
				message: fmt.Sprintf("matches more than one alternative (%d and %d)", k.Subschemas[0], k.Subschemas[1])}}
		}
		return alternatives(e, "oneOf")
	}
	return []leaf{describe(e)}
}

// branch is one alternative of a union and how it failed.
type branch struct {
	leaves []leaf
	discr  bool // a discriminating const or enum failed
}

// alternatives handles a union no branch matched. Each cause is one
// branch's failure.
func alternatives(e *jsonschema.ValidationError, keyword string) []leaf {
	var branches []branch
	for _, c := range e.Causes {
		b := branch{leaves: collect(c)}
		for _, l := range b.leaves {
			b.discr = b.discr || l.discriminator
		}
		branches = append(branches, b)
	}
	// The branch meant for this value: no discriminator failed, fewest
	// problems.
	best := -1
	for i, b := range branches {
		if !b.discr && (best < 0 || len(b.leaves) < len(branches[best].leaves)) {
			best = i
		}
	}
	if best >= 0 && len(branches) > 0 {
		only := 0
		for _, b := range branches {
			if !b.discr {
				only++
			}
		}
		// Several plausible branches that each fail only on the union's
		// own value's type: say which types were wanted.
		if only == len(branches) && allTypeAt(branches, e.InstanceLocation) {
			var want []string
			got := ""
			for _, b := range branches {
				want = append(want, b.leaves[0].want...)
				got = b.leaves[0].got
			}
			return []leaf{{tokens: e.InstanceLocation, keyword: keyword,
				message: "is " + got + ", want " + strings.Join(unique(want), " or ")}}
		}
		return branches[best].leaves
	}
	// Every branch failed a discriminator: if they all failed it at the
	// same place, list the values that were wanted there.
	var at []string
	var want []string
	got := ""
	same := true
	for _, b := range branches {
		found := false
		for _, l := range b.leaves {
			if l.discriminator {
				if at == nil {
					at = l.tokens
				}
				if pointer(l.tokens) != pointer(at) {
					same = false
				}
				want = append(want, l.want...)
				got = l.got
				found = true
				break
			}
		}
		same = same && found
	}
	if same && at != nil {
		return []leaf{{tokens: at, keyword: keyword, message: "is " + got + ", want one of " + strings.Join(unique(want), ", ")}}
	}
	return []leaf{{tokens: e.InstanceLocation, keyword: keyword,
		message: fmt.Sprintf("matches none of the %d alternatives", len(branches))}}
}

// allTypeAt reports whether every branch failed exactly one type check, at
// loc.
func allTypeAt(branches []branch, loc []string) bool {
	for _, b := range branches {
		if len(b.leaves) != 1 || b.leaves[0].keyword != "type" || pointer(b.leaves[0].tokens) != pointer(loc) {
			return false
		}
	}
	return true
}

// describe words one failing keyword.
func describe(e *jsonschema.ValidationError) leaf {
	l := leaf{tokens: e.InstanceLocation}
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		l.keyword = kp[len(kp)-1]
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		l.message = "missing " + plural(len(k.Missing), "property", "properties") + " " + quoteAll(k.Missing)
	case *kind.Type:
		l.got, l.want = k.Got, k.Want
		l.message = "is " + k.Got + ", want " + strings.Join(k.Want, " or ")
	case *kind.Const:
		l.discriminator = true
		l.got, l.want = show(k.Got), []string{show(k.Want)}
		l.message = "is " + l.got + ", want " + l.want[0]
	case *kind.Enum:
		l.discriminator = true
		l.got = show(k.Got)
		for _, w := range k.Want {
			l.want = append(l.want, show(w))
		}
		l.message = "is " + l.got + ", want one of " + strings.Join(l.want, ", ")
	case *kind.AdditionalProperties:
		l.message = "has " + plural(len(k.Properties), "property", "properties") + " " + quoteAll(k.Properties) + " the schema does not allow"
	case *kind.FalseSchema:
		l.message = "is not allowed here"
	case *kind.Minimum:
		l.message = "is " + ratText(k.Got) + ", want at least " + ratText(k.Want)
	case *kind.Maximum:
		l.message = "is " + ratText(k.Got) + ", want at most " + ratText(k.Want)
	case *kind.MinItems:
		l.message = fmt.Sprintf("has %d %s, want at least %d", k.Got, plural(k.Got, "item", "items"), k.Want)
	case *kind.MaxItems:
		l.message = fmt.Sprintf("has %d %s, want at most %d", k.Got, plural(k.Got, "item", "items"), k.Want)
	default:
		l.message = e.ErrorKind.LocalizedString(printer)
	}
	return l
}

// show renders a value for a message: JSON, cut short.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = show(n)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// pointer renders tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// tokensBefore orders instance locations as they appear in a document:
// array indexes numerically, a location before the ones inside it.
func tokensBefore(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		na, aok := index(a[i])
		nb, bok := index(b[i])
		if aok && bok {
			return na < nb
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}

// index reads an array index token.
func index(t string) (int, bool) {
	if t == "" || len(t) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range t {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ratText renders a number of a message in its shortest form: 2, 0.5.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
