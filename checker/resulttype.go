package checker

import "github.com/tidwall/gjson"

// W13-W14: results of 2026-07-28 requests carry a resultType (check.md 3.3 B).

func (s *session) resultTypeRules(fc *frameCtx, c *call) {
	m := &fc.msg
	// A non-empty string resultType is what every well-formed answer has:
	// the parse already found it, so this costs nothing.
	if m.resultType() != "" || !m.hasResult || c.method == "initialize" || !atLeast20260728(c.revision) {
		return
	}
	if !m.result.IsObject() {
		return
	}
	rt := m.resultField("resultType")
	switch {
	case !rt.Exists():
		fc.warn("W13", "result is missing required resultType", "result is missing required resultType")
	case rt.Type != gjson.String || rt.Str == "":
		fc.warn("W14", "result has an invalid resultType", "result has an invalid resultType")
	}
}
