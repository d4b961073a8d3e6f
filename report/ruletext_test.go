package report

import (
	"regexp"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// goVerb is a fmt verb as it would show in a text meant for people.
var goVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

func TestRuleText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"tool <name %q> declares <reason>", `tool "<name>" declares <reason>`},
		{"cacheScope <later %q> on a later page of <method> disagrees with <first %q>", `cacheScope "<later>" on a later page of <method> disagrees with "<first>"`},
		{"<n %d> frames, <id raw>", "<n> frames, <id raw>"},
		{"<token raw JSON> and <v %v>", "<token raw JSON> and <v>"},
		{"result is missing required resultType", "result is missing required resultType"},
	} {
		if got := RuleText(tt.in); got != tt.want {
			t.Errorf("RuleText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Every rule of the catalogue reads without a Go verb once rendered, and
// keeps every placeholder's name.
func TestRuleTextOfEveryRuleHasNoVerb(t *testing.T) {
	name := regexp.MustCompile(`<([^<>%]*?) %`)
	for _, r := range checker.Rules() {
		got := RuleText(r.Text)
		if v := goVerb.FindString(got); v != "" {
			t.Errorf("%s: %q still shows %s", r.ID, got, v)
		}
		for _, m := range name.FindAllStringSubmatch(r.Text, -1) {
			if !regexp.MustCompile(`<` + regexp.QuoteMeta(m[1]) + `>`).MatchString(got) {
				t.Errorf("%s: %q lost the placeholder <%s>", r.ID, got, m[1])
			}
		}
	}
}
