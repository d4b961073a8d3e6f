package checker_test

import "testing"

// TestInputRequiredRules covers W9-W12 (check.md 3.3 B): which methods may
// answer input_required, that one carries something, which inner requests
// it may make, and that they match the capabilities the request declared.
func TestInputRequiredRules(t *testing.T) {
	const (
		w9tail  = `, which 2026-07-28 allows only on prompts/get, resources/read and tools/call`
		w10     = "InputRequiredResult carries neither inputRequests nor requestState, and 2026-07-28 requires at least one"
		w11tail = `, and 2026-07-28 allows only elicitation/create, sampling/createMessage and roots/list`
	)
	// ir is an input_required result with the given extra members.
	ir := func(members string) string {
		if members == "" {
			return `{"resultType":"input_required"}`
		}
		return `{"resultType":"input_required",` + members + `}`
	}
	// inner is an inputRequests member asking key for method.
	inner := func(key, method string) string { return `"` + key + `":{"method":"` + method + `","params":{}}` }
	reqs := func(members ...string) string {
		out := `"inputRequests":{`
		for i, m := range members {
			if i > 0 {
				out += ","
			}
			out += m
		}
		return out + "}"
	}
	call := func(params string) string { return toolCall("1", "book", params) }
	frame2 := func(texts ...string) []string {
		if len(texts) == 0 {
			return nil
		}
		out := "session s line 2: " + texts[0]
		for _, x := range texts[1:] {
			out += ", " + x
		}
		return []string{out}
	}

	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		// W9
		{"W9 fires on tools/list",
			[]string{"c2s 0 " + rpcRequest("1", "tools/list", `{}`), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))},
			frame2(`InputRequiredResult on "tools/list"` + w9tail)},
		{"W9 fires on a method with characters to quote",
			[]string{"c2s 0 " + rpcRequest("1", `x/\"y\"`, `{}`), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))},
			frame2(`InputRequiredResult on "x/\"y\""` + w9tail)},
		{"W9 applies to a revision below 2026-07-28 too",
			[]string{"c2s 0 " + rpcRequest("1", "completion/complete", `{`+revMeta("2025-11-25", "")+`}`), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))},
			frame2(`InputRequiredResult on "completion/complete"` + w9tail)},
		{"W9 passes on tools/call",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))}, nil},
		{"W9 passes on prompts/get",
			[]string{"c2s 0 " + rpcRequest("1", "prompts/get", `{"name":"p"}`), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))}, nil},
		{"W9 passes on resources/read",
			[]string{"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///a"}`), "s2c 1 " + rpcResult("1", ir(`"requestState":"x"`))}, nil},
		{"W9 passes on a result that is not input_required",
			[]string{"c2s 0 " + rpcRequest("1", "tools/list", `{}`), "s2c 1 " + rpcResult("1", `{"resultType":"complete","tools":[]}`)}, nil},

		// W10
		{"W10 fires with neither member",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(""))}, frame2(w10)},
		{"W10 fires with an empty inputRequests",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs()))}, frame2(w10)},
		{"W10 passes with only a requestState",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(`"requestState":"s"`))}, nil},
		{"W10 passes with a requestState key, even null",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(`"requestState":null`))}, nil},
		{"W10 passes with only inputRequests",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "elicitation/create"))))}, nil},
		{"W9 and W10 together, in table order",
			[]string{"c2s 0 " + rpcRequest("1", "tools/list", `{}`), "s2c 1 " + rpcResult("1", ir(""))},
			frame2(`InputRequiredResult on "tools/list"`+w9tail, w10)},

		// W11
		{"W11 fires on tools/call as an inner request",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "tools/call"))))},
			frame2(`inputRequests names "tools/call"` + w11tail)},
		{"W11 once per offending value, methods sorted",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs(
				inner("a", "zeta/z"), inner("b", "elicitation/create"), inner("c", "alpha/a"), inner("d", "zeta/z"))))},
			frame2(`inputRequests names "alpha/a"`+w11tail, `inputRequests names "zeta/z"`+w11tail, `inputRequests names "zeta/z"`+w11tail)},
		{"W11 on a value with no method",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(`"inputRequests":{"a":{"params":{}},"b":7}`))},
			frame2(`inputRequests names ""`+w11tail, `inputRequests names ""`+w11tail)},
		{"W11 passes on the three allowed methods",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs(
				inner("a", "elicitation/create"), inner("b", "sampling/createMessage"), inner("c", "roots/list"))))}, nil},

		// W12
		{"W12 fires when the declared capabilities lack the one asked for",
			[]string{"c2s 0 " + call(meta2026), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "elicitation/create"))))},
			frame2(`inputRequests asks for "elicitation/create" while the request declared no elicitation capability`)},
		{"W12 fires on null capabilities, which declare nothing",
			[]string{"c2s 0 " + call(revMeta("2026-07-28", "null")), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "roots/list"))))},
			frame2(`inputRequests asks for "roots/list" while the request declared no roots capability`)},
		{"W12 once per method, methods sorted",
			[]string{"c2s 0 " + call(revMeta("2026-07-28", `{"elicitation":{}}`)), "s2c 1 " + rpcResult("1", ir(reqs(
				inner("a", "sampling/createMessage"), inner("b", "roots/list"), inner("c", "sampling/createMessage"), inner("d", "elicitation/create"))))},
			frame2(`inputRequests asks for "roots/list" while the request declared no roots capability`,
				`inputRequests asks for "sampling/createMessage" while the request declared no sampling capability`)},
		{"W12 needs no revision, only the declaration",
			[]string{"c2s 0 " + call(revMeta("", "{}")), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "sampling/createMessage"))))},
			frame2(`inputRequests asks for "sampling/createMessage" while the request declared no sampling capability`)},
		{"W12 passes when the capability is declared",
			[]string{"c2s 0 " + call(revMeta("2026-07-28", `{"elicitation":{},"sampling":{},"roots":{}}`)), "s2c 1 " + rpcResult("1", ir(reqs(
				inner("a", "sampling/createMessage"), inner("b", "roots/list"), inner("c", "elicitation/create"))))}, nil},
		{"W12 gate: a request declaring no capabilities at all",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "elicitation/create"))))}, nil},
		{"W12 gate: capabilities that are neither an object nor null",
			[]string{"c2s 0 " + call(revMeta("2026-07-28", `"all"`)), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "elicitation/create"))))}, nil},
		{"W12 not for a method W11 already rejects",
			[]string{"c2s 0 " + call(meta2026), "s2c 1 " + rpcResult("1", ir(reqs(inner("a", "tools/call"))))},
			frame2(`inputRequests names "tools/call"` + w11tail)},
		{"W9, W11 and W12 on one frame, in table order",
			[]string{"c2s 0 " + rpcRequest("1", "tools/list", `{`+meta2026+`}`), "s2c 1 " + rpcResult("1", ir(reqs(
				inner("a", "sampling/createMessage"), inner("b", "tools/call"))))},
			frame2(`InputRequiredResult on "tools/list"`+w9tail, `inputRequests names "tools/call"`+w11tail,
				`inputRequests asks for "sampling/createMessage" while the request declared no sampling capability`)},
		{"W10 on the answer to a linked retry",
			[]string{"c2s 0 " + call(""), "s2c 1 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 2 " + toolCall("2", "book", retryParams(`"S1"`, "q")), "s2c 3 " + rpcResult("2", ir(""))},
			[]string{"session s line 4: " + w10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", answerWarnings(t, tt.frames...), tt.want)
		})
	}
}
