package checker

import (
	"sort"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// The rule catalogue: every warn rule, every mismatch rule and the wire
// rule, with the protocol revisions the engine judges it under and the
// section of the specification it enforces, per revision where the page
// differs. rulecatalog.go holds the data; check --explain, the README's
// table, SARIF and the JSON report read it from here.

// SpecBase is where the specification's revisions are published.
const SpecBase = "https://modelcontextprotocol.io/specification/"

// RuleWire is the catalogue id of the wire rule (a finding's own link
// names the definition it broke; see wire.SpecURL).
const RuleWire = "wire"

// RuleRef is a rule a finding reports and the spec section it enforces,
// for the revision of the frame.
type RuleRef struct {
	ID      string `json:"id"`
	SpecURL string `json:"spec_url"`
}

// Rule is one entry of the catalogue.
type Rule struct {
	// ID is "W1".."W49" for warn rules (W1-W45 as spec/check.md numbers
	// them), "M1" for the server's own -32020 mismatch, "wire" for schema
	// validation.
	ID string
	// Signal is what the rule counts under: warn, mismatch (M1) or wire.
	Signal Signal
	// Mismatch marks a warn rule whose frames count as mismatch too.
	Mismatch bool
	// Party is who its findings blame: PartySender when that is whichever
	// side sent the frame.
	Party Party
	// Family groups rules as the README does.
	Family string
	// Text is the finding's message template (check.md's, or ours).
	Text string
	// Since is the first revision the engine judges the rule under, as the
	// frame's declared revision: "" for every revision.
	Since string
	// HTTPOnly: only frames of the streamable-HTTP transport are judged.
	HTTPOnly bool
	// Gate says in words what else must hold for the rule to be judged.
	Gate string
	// Example is a finding the rule gives (without "session <id> line
	// <n>: ").
	Example string
	// spec are the pages stating the rule, each from a revision on.
	spec []specPage
}

// specPage is a section of the specification, path relative to a
// revision's root, valid from revision from on.
type specPage struct {
	from, path string
}

// newestRevision is the newest revision with a schema.
var newestRevision = wire.Revisions[len(wire.Revisions)-1]

// AppliesTo reports whether the engine judges the rule under rev.
func (r *Rule) AppliesTo(rev string) bool {
	return r.Since == "" || rev >= r.Since
}

// Revisions lists the known revisions the rule applies to.
func (r *Rule) Revisions() []string {
	var out []string
	for _, rev := range wire.Revisions {
		if r.AppliesTo(rev) {
			out = append(out, rev)
		}
	}
	return out
}

// SpecURL is the section the rule enforces, for a frame of revision rev:
// the page of that revision; for a revision before the rule's first page,
// that page (a rule's pages start no earlier than its Since, so a revision
// the rule does not apply to gets the nearest one it does); for a revision
// without a schema, the newest.
func (r *Rule) SpecURL(rev string) string {
	rev, path := r.page(rev)
	if path == "" {
		return ""
	}
	return SpecBase + rev + "/" + path
}

// page is the revision whose page SpecURL links for rev, and the page's
// path within it.
func (r *Rule) page(rev string) (string, string) {
	if !wire.Known(rev) {
		rev = newestRevision
	}
	if len(r.spec) == 0 {
		return rev, ""
	}
	page := r.spec[0]
	for _, p := range r.spec {
		if p.from <= rev {
			page = p
		}
	}
	if rev < page.from {
		rev = page.from
	}
	return rev, page.path
}

// SpecURLs lists the distinct sections the rule enforces over the
// revisions it applies to, oldest first, each with the first of those
// revisions it holds for.
func (r *Rule) SpecURLs() []RevisionURL {
	var out []RevisionURL
	for _, rev := range r.Revisions() {
		linked, path := r.page(rev)
		if len(out) > 0 && out[len(out)-1].Path == path {
			continue
		}
		out = append(out, RevisionURL{Revision: rev, Path: path, URL: SpecBase + linked + "/" + path})
	}
	return out
}

// RevisionURL is a spec section, the page's path within a revision, and
// the first revision it is linked for.
type RevisionURL struct {
	Revision, Path, URL string
}

// Rules returns the catalogue in id order (W1..W49, M1, wire).
func Rules() []Rule {
	return append([]Rule(nil), ruleCatalog...)
}

// LookupRule finds a rule by id, case-insensitively ("w13" finds W13).
func LookupRule(id string) (Rule, bool) {
	id = strings.TrimSpace(id)
	for _, r := range ruleCatalog {
		if strings.EqualFold(r.ID, id) {
			return r, true
		}
	}
	return Rule{}, false
}

// ruleIndex finds a rule by its exact id.
var ruleIndex = func() map[string]*Rule {
	m := map[string]*Rule{}
	for i := range ruleCatalog {
		m[ruleCatalog[i].ID] = &ruleCatalog[i]
	}
	return m
}()

// ruleRefs turns a frame's rule ids, in the order they fired, into
// references for revision rev, each id once; keep selects which ids.
func ruleRefs(ids []string, rev string, keep func(*Rule) bool) []RuleRef {
	var out []RuleRef
	for i, id := range ids {
		if indexOf(ids[:i], id) >= 0 {
			continue
		}
		r := ruleIndex[id]
		if r == nil || (keep != nil && !keep(r)) {
			continue
		}
		out = append(out, RuleRef{ID: id, SpecURL: r.SpecURL(rev)})
	}
	return out
}

func indexOf(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}

// RuleHit is how often a rule fired in a session.
type RuleHit struct {
	ID      string `json:"id"`
	Frames  int    `json:"frames"`
	SpecURL string `json:"spec_url"`
}

// ruleHits counts, per rule, the frames it fired on.
type ruleHits map[string]*RuleHit

func (h *ruleHits) add(refs []RuleRef) {
	if *h == nil {
		*h = ruleHits{}
	}
	for _, r := range refs {
		hit := (*h)[r.ID]
		if hit == nil {
			hit = &RuleHit{ID: r.ID, SpecURL: r.SpecURL}
			(*h)[r.ID] = hit
		}
		hit.Frames++
	}
}

// sorted lists the hits in catalogue order.
func (h ruleHits) sorted() []RuleHit {
	out := make([]RuleHit, 0, len(h))
	for _, hit := range h {
		out = append(out, *hit)
	}
	order := map[string]int{}
	for i, r := range ruleCatalog {
		order[r.ID] = i
	}
	sort.Slice(out, func(i, j int) bool { return order[out[i].ID] < order[out[j].ID] })
	return out
}
