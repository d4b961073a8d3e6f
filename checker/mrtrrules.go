package checker

import (
	"sort"
	"strconv"

	"github.com/tidwall/gjson"
)

// W9-W12: the shape of an input_required result (check.md 3.3 B).

// innerCapability is the client capability an inner request of an
// InputRequiredResult needs; "" for a method 2026-07-28 does not allow there.
func innerCapability(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

func (s *session) inputRequiredRules(fc *frameCtx, c *call) {
	m := &fc.msg
	if m.resultType() != "input_required" {
		return
	}
	// W9: only three methods may ask for input.
	switch c.method {
	case "prompts/get", "resources/read", "tools/call":
	default:
		fc.warn("W9", "InputRequiredResult on <method %q>, which 2026-07-28 allows only on prompts/get, resources/read and tools/call",
			"InputRequiredResult on "+strconv.Quote(c.method)+", which 2026-07-28 allows only on prompts/get, resources/read and tools/call")
	}

	// The inner requests' methods, in document order.
	var methods []string
	entries := 0
	if reqs := m.resultField("inputRequests"); reqs.IsObject() {
		reqs.ForEach(func(_, v gjson.Result) bool {
			entries++
			method := ""
			if v.IsObject() {
				if mv := v.Get("method"); mv.Type == gjson.String {
					method = mv.Str
				}
			}
			methods = append(methods, method)
			return true
		})
	}

	// W10: at least one of inputRequests entries and requestState.
	if entries == 0 && !m.resultField("requestState").Exists() {
		fc.warn("W10", "InputRequiredResult carries neither inputRequests nor requestState, and 2026-07-28 requires at least one",
			"InputRequiredResult carries neither inputRequests nor requestState, and 2026-07-28 requires at least one")
	}
	if len(methods) == 0 {
		return
	}
	sort.Strings(methods)

	// W11: each inner request of a method 2026-07-28 does not allow.
	for _, method := range methods {
		if innerCapability(method) == "" {
			fc.warn("W11", "inputRequests names <method %q>, and 2026-07-28 allows only elicitation/create, sampling/createMessage and roots/list",
				"inputRequests names "+strconv.Quote(method)+", and 2026-07-28 allows only elicitation/create, sampling/createMessage and roots/list")
		}
	}

	// W12: the request declared its client capabilities (an object, or null
	// declaring nothing) and an inner request needs one it lacks. Each
	// method is reported once.
	if !c.hasMetaCaps {
		return
	}
	caps := gjson.Parse(c.metaCaps)
	if caps.Type != gjson.Null && !caps.IsObject() {
		return
	}
	for i, method := range methods {
		if i > 0 && methods[i-1] == method {
			continue
		}
		capName := innerCapability(method)
		if capName == "" || (caps.IsObject() && caps.Get(capName).Exists()) {
			continue
		}
		fc.warn("W12", "inputRequests asks for <method %q> while the request declared no <cap> capability",
			"inputRequests asks for "+strconv.Quote(method)+" while the request declared no "+capName+" capability")
	}
}
