package security

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/tidwall/gjson"
)

// A Profile is what the security rules see in one tool definition: its
// cues, the destinations its texts name and its safety hints. Rug pulls
// (S8) compare two profiles of one tool.
type Profile struct {
	Cues  []Cue           // in Scan order, field by field
	Dests map[string]bool // URL hosts and e-mail addresses, lower-cased
	// Destructive and ReadOnly are the hints as set; nil when unset.
	Destructive, ReadOnly *bool
}

var (
	urlHost = regexp.MustCompile(`(?i)\bhttps?://([^\s/"'<>)\]?#` + "`" + `]+)`)
	email   = regexp.MustCompile(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)
)

// ToolProfile reads the profile of a tool object of a tools/list result.
func ToolProfile(tool gjson.Result, own map[string]bool) Profile {
	p := Profile{Dests: map[string]bool{}}
	for _, f := range ItemTexts(tool, "tool", "") {
		p.Cues = append(p.Cues, Scan(f.Text, InDefinition, own)...)
		for _, m := range urlHost.FindAllStringSubmatch(f.Text, -1) {
			p.Dests[strings.ToLower(strings.TrimRight(m[1], ".,;:"))] = true
		}
		for _, m := range email.FindAllString(f.Text, -1) {
			p.Dests[strings.ToLower(m)] = true
		}
	}
	p.Destructive = hint(tool, "destructiveHint")
	p.ReadOnly = hint(tool, "readOnlyHint")
	return p
}

func hint(tool gjson.Result, name string) *bool {
	v := tool.Get("annotations." + name)
	if v.Type != gjson.True && v.Type != gjson.False {
		return nil
	}
	b := v.Bool()
	return &b
}

// DefinitionJSON writes a baseline's tool definition back as the tool
// object it was recorded from.
func DefinitionJSON(t tooldef.Tool) []byte {
	obj := map[string]any{"name": t.Name}
	if t.Description != "" {
		obj["description"] = t.Description
	}
	if t.Title != "" {
		obj["title"] = t.Title
	}
	for k, raw := range map[string]json.RawMessage{"inputSchema": t.InputSchema, "outputSchema": t.OutputSchema, "annotations": t.Annotations} {
		if len(raw) > 0 && string(raw) != "null" {
			obj[k] = raw
		}
	}
	b, _ := json.Marshal(obj) // a map of strings and valid raw JSON
	return b
}

// A Change is one way a definition got worse (S8).
type Change struct {
	What  string // "adds S1", "adds destination", "flips destructiveHint"
	Match string // the cue, destination or flip
}

// RugPull lists how after is worse than before: cues of rules before did
// not have, destinations before did not name, and the hints flipped to
// claim less harm (destructiveHint true to false, readOnlyHint false to
// true). nil when it is no worse.
func RugPull(before, after Profile) []Change {
	var out []Change
	had := map[string]bool{}
	for _, c := range before.Cues {
		had[c.Rule] = true
	}
	for _, c := range after.Cues {
		if !had[c.Rule] {
			had[c.Rule] = true
			out = append(out, Change{What: "adds " + c.Rule + " (" + c.Why + ")", Match: c.Match})
		}
	}
	var dests []string
	for d := range after.Dests {
		if !before.Dests[d] {
			dests = append(dests, d)
		}
	}
	sort.Strings(dests)
	for _, d := range dests {
		out = append(out, Change{What: "adds destination", Match: d})
	}
	if flipped(before.Destructive, after.Destructive, true) {
		out = append(out, Change{What: "flips destructiveHint", Match: "true -> false"})
	}
	if flipped(before.ReadOnly, after.ReadOnly, false) {
		out = append(out, Change{What: "flips readOnlyHint", Match: "false -> true"})
	}
	return out
}

// flipped reports a hint set to from before and to !from after.
func flipped(before, after *bool, from bool) bool {
	return before != nil && after != nil && *before == from && *after == !from
}

// SameDefinition reports whether two tool objects define the same tool:
// equal once canonical (keys sorted, spaces gone).
func SameDefinition(a, b []byte) bool {
	ca, err1 := tooldef.CanonicalJSON(a)
	cb, err2 := tooldef.CanonicalJSON(b)
	return err1 == nil && err2 == nil && string(ca) == string(cb)
}
