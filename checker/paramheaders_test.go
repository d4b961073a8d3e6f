package checker_test

import (
	"strings"
	"testing"
)

// hxListing is a 2026-07-28 tools/list request over HTTP and its answer
// advertising tools (a JSON array).
func hxListing(id, tools string) []hxFrame {
	return []hxFrame{
		hxC2S(rpcRequest(id, "tools/list", `{`+hxMeta26+`}`), hxHeaders("tools/list", "")),
		hxS2C(rpcResult(id, `{"resultType":"complete","ttlMs":0,"tools":`+tools+`}`), ""),
	}
}

// hxTool is a tool advertising the given inputSchema properties.
func hxTool(name, properties string) string {
	return `{"name":"` + name + `","description":"d","inputSchema":{"type":"object","properties":` + properties + `}}`
}

const hxW15Tail = ", so its Mcp-Param headers are not checked"

func TestXMcpHeaderDefinitions(t *testing.T) {
	listed := func(tools ...string) []hxFrame { return hxListing("1", "["+strings.Join(tools, ",")+"]") }
	w15 := func(reasons ...string) []string {
		for i, r := range reasons {
			reasons[i] = r + hxW15Tail
		}
		return []string{hxWarn(2, strings.Join(reasons, ", "))}
	}
	runHxCases(t, []hxCase{
		{
			name:   "not a string",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":7}}`)),
			want:   w15(`tool "t" declares an x-mcp-header on property "a" that is not a string`),
		},
		{
			name:   "empty",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":""}}`)),
			want:   w15(`tool "t" declares an empty x-mcp-header on property "a"`),
		},
		{
			name:   "not a header field name",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":"Bad Name"}}`)),
			want:   w15(`tool "t" declares x-mcp-header "Bad Name" on property "a", which is not a valid header field name`),
		},
		{
			name:   "every token character is allowed",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":"A-z_0.9!#$%&'*+^`+"`"+`|~"}}`)),
		},
		{
			name:   "on more than one property, ignoring case",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}`)),
			want:   w15(`tool "t" declares x-mcp-header "dup" on more than one property`),
		},
		{
			name:   "a type that is not a primitive",
			frames: listed(hxTool("t", `{"n":{"type":"number","x-mcp-header":"N"}}`)),
			want:   w15(`tool "t" declares x-mcp-header "N" on property "n", whose type "number" is not one of string, integer or boolean`),
		},
		{
			name:   "a nullable union reads as its type",
			frames: listed(hxTool("t", `{"n":{"type":["number","null"],"x-mcp-header":"N"}}`)),
			want:   w15(`tool "t" declares x-mcp-header "N" on property "n", whose type "number" is not one of string, integer or boolean`),
		},
		{
			name:   "a single non-null oneOf branch reads as its type",
			frames: listed(hxTool("t", `{"n":{"oneOf":[{"type":"null"},{"type":"object"}],"x-mcp-header":"N"}}`)),
			want:   w15(`tool "t" declares x-mcp-header "N" on property "n", whose type "object" is not one of string, integer or boolean`),
		},
		{
			name:   "no readable type is silently unbound",
			frames: listed(hxTool("t", `{"a":{"x-mcp-header":"A"},"b":{"type":["string","integer"],"x-mcp-header":"B"},"c":{"anyOf":[{"type":"string"},{"type":"integer"}],"x-mcp-header":"C"}}`)),
		},
		{
			name:   "nested path is dotted",
			frames: listed(hxTool("t", `{"o":{"type":"object","properties":{"in":{"type":"array","x-mcp-header":"In"}}}}`)),
			want:   w15(`tool "t" declares x-mcp-header "In" on property "o.in", whose type "array" is not one of string, integer or boolean`),
		},
		{
			name:   "under items",
			frames: listed(hxTool("t", `{"a":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}`)),
			want:   w15(`tool "t" declares an x-mcp-header under "items", which 2026-07-28 does not allow in the chain to an annotated property`),
		},
		{
			name:   "under $defs",
			frames: listed(`{"name":"t","inputSchema":{"type":"object","$defs":{"x":{"type":"string","x-mcp-header":"X"}},"properties":{}}}`),
			want:   w15(`tool "t" declares an x-mcp-header under "$defs", which 2026-07-28 does not allow in the chain to an annotated property`),
		},
		{
			name:   "values under default, const, examples and enum are data",
			frames: listed(hxTool("t", `{"a":{"type":"string","x-mcp-header":"A","default":{"x-mcp-header":"d"},"const":{"x-mcp-header":"c"},"examples":[{"x-mcp-header":"e"}],"enum":[{"x-mcp-header":"n"}]}}`)),
		},
		{
			name:   "a property named like a keyword is a name",
			frames: listed(hxTool("t", `{"items":{"type":"string","x-mcp-header":"I"},"default":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}`)),
		},
		{
			name:   "first violation by sorted property name",
			frames: listed(hxTool("t", `{"z":{"type":"number","x-mcp-header":"Z"},"b":{"type":"string","x-mcp-header":""}}`)),
			want:   w15(`tool "t" declares an empty x-mcp-header on property "b"`),
		},
		{
			name: "one warning for all offending tools of a listing",
			frames: listed(hxTool("ok", `{"a":{"type":"string","x-mcp-header":"A"}}`),
				hxTool("t1", `{"a":{"type":"string","x-mcp-header":7}}`), hxTool("t2", `{"a":{"type":"string","x-mcp-header":""}}`)),
			want: w15(`tool "t1" declares an x-mcp-header on property "a" that is not a string`,
				`tool "t2" declares an empty x-mcp-header on property "a"`),
		},
		{
			name:   "valid annotations",
			frames: listed(hxTool("t", `{"s":{"type":"string","x-mcp-header":"S"},"i":{"type":["integer","null"],"x-mcp-header":"I"},"o":{"type":"object","properties":{"b":{"anyOf":[{"type":"boolean"},{"type":"null"}],"x-mcp-header":"B"}}},"x":{"x-mcp-header":null}}`)),
		},
		{
			name: "not on stdio",
			frames: []hxFrame{
				hxC2S(rpcRequest("1", "tools/list", `{`+hxMeta26+`}`), "").onStdio(),
				hxS2C(rpcResult("1", `{"resultType":"complete","ttlMs":0,"tools":[`+hxTool("t", `{"a":{"type":"string","x-mcp-header":7}}`)+`]}`), "").onStdio(),
			},
		},
		{
			name: "not when the listing request is legacy",
			frames: []hxFrame{
				hxC2S(rpcRequest("1", "tools/list", `{}`), `"mcp_method":"tools/list"`),
				hxS2C(rpcResult("1", `{"tools":[`+hxTool("t", `{"a":{"type":"string","x-mcp-header":7}}`)+`]}`), ""),
			},
		},
	})
}

func TestParamHeaderRules(t *testing.T) {
	geo := hxListing("1", `[`+hxTool("geo", `{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"},"flag":{"type":["boolean","null"],"x-mcp-header":"Flag"},"obj":{"type":"object","properties":{"inner":{"anyOf":[{"type":"string"},{"type":"null"}],"x-mcp-header":"Inner"}}}}`)+`]`)
	// callWith is a tools/call of geo (frame 3) with the given arguments and
	// Mcp-Param headers (JSON array members) and more envelope members.
	callWith := func(args, params, extra string) []hxFrame {
		e := hxHeaders("tools/call", "geo")
		if params != "" {
			e += `,"mcp_param_headers":[` + params + `]`
		}
		if extra != "" {
			e += "," + extra
		}
		return append(append([]hxFrame(nil), geo...), hxC2S(hxCall("2", "geo", args), e))
	}
	ph := func(name, value string) string { return `{"name":"Mcp-Param-` + name + `","value":"` + value + `"}` }
	w := func(text string) []string { return hxBoth(3, text) }
	runHxCases(t, []hxCase{
		{
			name:   "all agree, in every spelling",
			frames: callWith(`{"region":"eu","count":42,"flag":true,"obj":{"inner":"x"}}`, ph("Region", "=?base64?ZXU=?=")+","+ph("Count", "42.0")+","+ph("Flag", "true")+","+ph("Inner", "x"), ""),
		},
		{
			name:   "integers compare numerically",
			frames: callWith(`{"count":1e3}`, ph("Count", "1000"), ""),
		},
		{
			name:   "header present, argument absent",
			frames: callWith(`{}`, ph("Region", "eu"), ""),
			want:   w(`routing header Mcp-Param-Region is present but body parameter "region" is absent or null`),
		},
		{
			name:   "header present, argument null",
			frames: callWith(`{"obj":{"inner":null}}`, ph("Inner", "x"), ""),
			want:   w(`routing header Mcp-Param-Inner is present but body parameter "obj.inner" is absent or null`),
		},
		{
			name:   "argument present, header missing",
			frames: callWith(`{"region":"eu"}`, "", ""),
			want:   w(`required routing header Mcp-Param-Region is missing for body parameter "region"`),
		},
		{
			name:   "header name matched case-insensitively",
			frames: callWith(`{"region":"eu"}`, `{"name":"mcp-param-REGION","value":"eu"}`, ""),
		},
		{
			name:   "repeated with conflicting values",
			frames: callWith(`{"region":"eu"}`, ph("Region", "eu")+","+ph("region", "us"), ""),
			want:   w(`routing header Mcp-Param-Region is repeated with conflicting values, so body parameter "region" cannot be checked`),
		},
		{
			name:   "repeated with agreeing values",
			frames: callWith(`{"region":"eu","count":7}`, ph("Count", "7")+","+ph("Count", "7.0")+","+ph("Region", "eu")+","+ph("Region", "=?base64?ZXU?="), ""),
		},
		{
			name:   "invalid Base64",
			frames: callWith(`{"region":"eu"}`, ph("Region", "=?base64?!!!?="), ""),
			want:   w(`routing header Mcp-Param-Region has invalid Base64 encoding`),
		},
		{
			name:   "argument not a string",
			frames: callWith(`{"region":5}`, ph("Region", "5"), ""),
			want:   w(`routing header Mcp-Param-Region cannot be compared because body parameter "region" is not a valid string`),
		},
		{
			name:   "argument not a boolean",
			frames: callWith(`{"flag":"yes"}`, ph("Flag", "true"), ""),
			want:   w(`routing header Mcp-Param-Flag cannot be compared because body parameter "flag" is not a valid boolean`),
		},
		{
			name:   "argument not an integer",
			frames: callWith(`{"count":1.5}`, ph("Count", "1.5"), ""),
			want:   w(`routing header Mcp-Param-Count cannot be compared because body parameter "count" is not a valid integer`),
		},
		{
			name:   "argument outside the safe range",
			frames: callWith(`{"count":9007199254740992}`, ph("Count", "9007199254740992"), ""),
			want:   w(`routing header Mcp-Param-Count cannot be compared because body parameter "count" is outside the safe integer range x-mcp-header requires`),
		},
		{
			name:   "header outside the safe range",
			frames: callWith(`{"count":5}`, ph("Count", "-9007199254740993"), ""),
			want:   w(`routing header Mcp-Param-Count "-9007199254740993" is outside the safe integer range x-mcp-header requires`),
		},
		{
			name:   "the largest safe integer agrees",
			frames: callWith(`{"count":-9007199254740991}`, ph("Count", "-9007199254740991"), ""),
		},
		{
			name:   "string values differ",
			frames: callWith(`{"region":"eu"}`, ph("Region", "us"), ""),
			want:   w(`routing header Mcp-Param-Region "us" disagrees with body parameter "region" "eu"`),
		},
		{
			name:   "integer values differ; the body is shown in decimal",
			frames: callWith(`{"count":4.2e1}`, ph("Count", "43"), ""),
			want:   w(`routing header Mcp-Param-Count "43" disagrees with body parameter "count" "42"`),
		},
		{
			name:   "an integer header that is not a number disagrees",
			frames: callWith(`{"count":42}`, ph("Count", "forty-two"), ""),
			want:   w(`routing header Mcp-Param-Count "forty-two" disagrees with body parameter "count" "42"`),
		},
		{
			name:   "booleans compare as true/false",
			frames: callWith(`{"flag":false}`, ph("Flag", "False"), ""),
			want:   w(`routing header Mcp-Param-Flag "False" disagrees with body parameter "flag" "false"`),
		},
		{
			name:   "bindings in header-name order, case-insensitively",
			frames: callWith(`{"region":"eu","count":1,"obj":{"inner":"a"}}`, ph("Count", "2")+","+ph("Inner", "b"), ""),
			want: w(`routing header Mcp-Param-Count "2" disagrees with body parameter "count" "1", ` +
				`routing header Mcp-Param-Inner "b" disagrees with body parameter "obj.inner" "a", ` +
				`required routing header Mcp-Param-Region is missing for body parameter "region"`),
		},
		{
			name:   "unknown parameter headers are observational",
			frames: callWith(`{}`, ph("Other", "x"), ""),
		},
		{
			name:   "a header mcpsnoop flagged as scrubbed is not compared",
			frames: callWith(`{"region":"eu"}`, `{"name":"Mcp-Param-Region","value":"[REDACTED]","redacted":true}`, `"redacted":true`),
		},
		{
			name:   "without flags, the placeholder on a redacted frame is not compared",
			frames: callWith(`{"region":"eu"}`, ph("Region", "[REDACTED]"), `"redacted":true`),
		},
		{
			name:   "with flags, an unflagged placeholder is compared",
			frames: callWith(`{"region":"eu","count":1}`, `{"name":"Mcp-Param-Count","value":"[REDACTED]","redacted":true},`+ph("Region", "[REDACTED]"), `"redacted":true`),
			want:   w(`routing header Mcp-Param-Region "[REDACTED]" disagrees with body parameter "region" "eu"`),
		},
		{
			name:   "the placeholder on a frame mcpsnoop did not redact is compared",
			frames: callWith(`{"region":"eu"}`, ph("Region", "[REDACTED]"), ""),
			want:   w(`routing header Mcp-Param-Region "[REDACTED]" disagrees with body parameter "region" "eu"`),
		},
		{
			name:   "a scrubbed argument on a redacted frame is not compared",
			frames: callWith(`{"count":"[REDACTED]"}`, ph("Count", "5"), `"redacted":true`),
		},
		{
			name:   "a scrubbed ancestor hides the argument on a redacted frame",
			frames: callWith(`{"obj":"[REDACTED]"}`, ph("Inner", "x"), `"redacted":true`),
		},
		{
			name:   "the same ancestor on a frame mcpsnoop did not redact",
			frames: callWith(`{"obj":"[REDACTED]"}`, ph("Inner", "x"), ""),
			want:   w(`routing header Mcp-Param-Inner is present but body parameter "obj.inner" is absent or null`),
		},
		{
			name: "not on stdio",
			frames: append(append([]hxFrame(nil), geo...),
				hxC2S(hxCall("2", "geo", `{"region":"eu"}`), `"mcp_param_headers":[`+ph("Region", "us")+`]`).onStdio()),
		},
		{
			name: "not on a legacy call",
			frames: append(append([]hxFrame(nil), geo...),
				hxC2S(rpcRequest("2", "tools/call", `{"name":"geo","arguments":{"region":"eu"},`+hxMeta25+`}`), `"mcp_method":"tools/call","mcp_name":"geo"`)),
		},
		{
			name: "not on a batch element",
			frames: append(append([]hxFrame(nil), geo...),
				hxC2S(hxCall("2", "geo", `{"region":"eu"}`), `"batch":true`)),
		},
		{
			name:   "not without a definition",
			frames: []hxFrame{hxC2S(hxCall("2", "geo", `{"region":"eu"}`), hxHeaders("tools/call", "geo")+`,"mcp_param_headers":[`+ph("Region", "us")+`]`)},
		},
		{
			name: "not for a tool whose annotations are invalid",
			frames: append(hxListing("1", `[`+hxTool("geo", `{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"number","x-mcp-header":"N"}}`)+`]`),
				hxC2S(hxCall("2", "geo", `{"region":"eu"}`), hxHeaders("tools/call", "geo"))),
			want: []string{hxWarn(2, `tool "geo" declares x-mcp-header "N" on property "n", whose type "number" is not one of string, integer or boolean`+hxW15Tail)},
		},
		{
			name: "a cursorless re-listing replaces the definitions",
			frames: append(append(append([]hxFrame(nil), geo...), hxListing("9", `[`+hxTool("geo", `{"region":{"type":"string"}}`)+`]`)...),
				hxC2S(hxCall("2", "geo", `{"region":"eu"}`), hxHeaders("tools/call", "geo"))),
		},
		{
			name: "a cursored page extends them",
			frames: append(append(append([]hxFrame(nil), geo...),
				hxC2S(rpcRequest("9", "tools/list", `{"cursor":"p2",`+hxMeta26+`}`), hxHeaders("tools/list", "")),
				hxS2C(rpcResult("9", `{"resultType":"complete","ttlMs":0,"tools":[`+hxTool("geo", `{}`)+`,`+hxTool("zip", `{"code":{"type":"string","x-mcp-header":"Code"}}`)+`]}`), "")),
				hxC2S(hxCall("2", "geo", `{"region":"eu"}`), hxHeaders("tools/call", "geo")),
				hxC2S(hxCall("3", "zip", `{"code":"1"}`), hxHeaders("tools/call", "zip"))),
			want: hxJoin(
				hxBoth(5, `required routing header Mcp-Param-Region is missing for body parameter "region"`),
				hxBoth(6, `required routing header Mcp-Param-Code is missing for body parameter "code"`)),
		},
	})
}
