package report

import "regexp"

// placeholderVerb is a placeholder of the rule catalogue that carries the
// Go verb the engine formats its value with: <name %q>, <n %d>.
var placeholderVerb = regexp.MustCompile(`<([^<>%]*?) %[-+# 0-9.]*([a-zA-Z])>`)

// RuleText is a catalogue rule's text as a reader sees it (check --explain,
// the rule reference). The catalogue writes each placeholder with the verb
// its value is formatted with, which means nothing to a reader: a quoted
// one (<name %q>) reads "<name>", as the finding quotes the value, and any
// other (<n %d>) reads <n>.
func RuleText(text string) string {
	return placeholderVerb.ReplaceAllStringFunc(text, func(p string) string {
		m := placeholderVerb.FindStringSubmatch(p)
		if m[2] == "q" {
			return `"<` + m[1] + `>"`
		}
		return "<" + m[1] + ">"
	})
}
