package checker_test

import (
	"strings"
	"testing"
)

// TestCacheRules covers W17-W23 (check.md 3.3 B): cache hints on cacheable
// results, their gate, and one scope across the pages of a list.
func TestCacheRules(t *testing.T) {
	const (
		notInt    = ", which is not an integer"
		negative  = ", and 2026-07-28 requires a value of zero or more"
		notString = ", which is not a string"
		empty     = "cacheScope is empty, and 2026-07-28 defines only public and private"
		undefined = ", and 2026-07-28 defines only public and private"
		noTTL     = " result declares no ttlMs, which 2026-07-28 requires"
		oneScope  = " on the first, and 2026-07-28 requires one scope per list request"
	)
	// list is a tools/list exchange (ids 1) whose result carries members.
	list := func(params, members string) []string {
		return []string{
			"c2s 0 " + rpcRequest("1", "tools/list", "{"+params+"}"),
			"s2c 1 " + rpcResult("1", `{"tools":[]`+members+`}`),
		}
	}
	complete := func(members string) []string { return list(meta2026, `,"resultType":"complete"`+members) }
	frame2 := func(texts ...string) []string {
		if len(texts) == 0 {
			return nil
		}
		return []string{"session s line 2: " + strings.Join(texts, ", ")}
	}

	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		// W17
		{"W17 fires on a fraction", complete(`,"ttlMs":1.5`), frame2("ttlMs is 1.5" + notInt)},
		{"W17 fires on a string, printed as raw JSON", complete(`,"ttlMs":"60000"`), frame2(`ttlMs is "60000"` + notInt)},
		{"W17 fires on a boolean", complete(`,"ttlMs":true`), frame2("ttlMs is true" + notInt)},
		{"W17 fires on an object", complete(`,"ttlMs":{"ms":1}`), frame2(`ttlMs is {"ms":1}` + notInt)},
		{"W17 fires beyond 2^53-1", complete(`,"ttlMs":9007199254740992`), frame2("ttlMs is 9007199254740992" + notInt)},
		{"W17 fires far beyond", complete(`,"ttlMs":1e300`), frame2("ttlMs is 1e300" + notInt)},
		{"W17 fires on a fraction too small for a float", complete(`,"ttlMs":9007199254740991.5`), frame2("ttlMs is 9007199254740991.5" + notInt)},
		{"W17 fires on a tiny fraction", complete(`,"ttlMs":1e-400`), frame2("ttlMs is 1e-400" + notInt)},
		{"W17 fires below -(2^53-1), not W18", complete(`,"ttlMs":-9007199254740992`), frame2("ttlMs is -9007199254740992" + notInt)},
		{"W17 fires on a negative fraction, not W18", complete(`,"ttlMs":-0.5`), frame2("ttlMs is -0.5" + notInt)},
		{"W17 passes on 60000.0", complete(`,"ttlMs":60000.0`), nil},
		{"W17 passes on 6e4", complete(`,"ttlMs":6e4`), nil},
		{"W17 passes on 6E+4", complete(`,"ttlMs":6E+4`), nil},
		{"W17 passes on 600000e-1", complete(`,"ttlMs":600000e-1`), nil},
		{"W17 passes on 0.06e6", complete(`,"ttlMs":0.06e6`), nil},
		{"W17 passes on 2^53-1", complete(`,"ttlMs":9007199254740991`), nil},
		{"W17 passes on 9.007199254740991e15", complete(`,"ttlMs":9.007199254740991e15`), nil},
		{"W17 passes on zero", complete(`,"ttlMs":0`), nil},
		{"W17 passes on 0e999", complete(`,"ttlMs":0e999`), nil},

		// W18
		{"W18 fires on a negative integer", complete(`,"ttlMs":-5`), frame2("ttlMs is -5" + negative)},
		{"W18 prints the number as written", complete(`,"ttlMs":-5.0`), frame2("ttlMs is -5.0" + negative)},
		{"W18 prints an exponent as written", complete(`,"ttlMs":-1e3`), frame2("ttlMs is -1e3" + negative)},
		{"W18 fires at -(2^53-1)", complete(`,"ttlMs":-9007199254740991`), frame2("ttlMs is -9007199254740991" + negative)},
		{"W18 passes on negative zero", complete(`,"ttlMs":-0`), nil},
		{"W18 passes on negative zero with a fraction", complete(`,"ttlMs":-0.0`), nil},

		// W19-W21
		{"W19 fires on a number", complete(`,"ttlMs":1,"cacheScope":5`), frame2("cacheScope is 5" + notString)},
		{"W19 fires on an array", complete(`,"ttlMs":1,"cacheScope":["public"]`), frame2(`cacheScope is ["public"]` + notString)},
		{"W19 passes on null", complete(`,"ttlMs":1,"cacheScope":null`), nil},
		{"W20 fires on an empty scope", complete(`,"ttlMs":1,"cacheScope":""`), frame2(empty)},
		{"W21 fires on an undefined scope", complete(`,"ttlMs":1,"cacheScope":"shared"`), frame2(`cacheScope is "shared"` + undefined)},
		{"W21 is case-sensitive", complete(`,"ttlMs":1,"cacheScope":"Public"`), frame2(`cacheScope is "Public"` + undefined)},
		{"W21 quotes as Go does", complete(`,"ttlMs":1,"cacheScope":"a\"b\u00e9\n"`), frame2(`cacheScope is "a\"bé\n"` + undefined)},
		{"W21 passes on public", complete(`,"ttlMs":1,"cacheScope":"public"`), nil},
		{"W21 passes on private", complete(`,"ttlMs":1,"cacheScope":"private"`), nil},

		// W22
		{"W22 fires on a complete result without ttlMs", complete(``), frame2("cacheable tools/list" + noTTL)},
		{"W22 fires on a null ttlMs", complete(`,"ttlMs":null,"cacheScope":"public"`), frame2("cacheable tools/list" + noTTL)},
		{"W22 passes on an invalid ttlMs, reported as such", complete(`,"ttlMs":-5`), frame2("ttlMs is -5" + negative)},
		{"W22 leaves an absent resultType to W13", list(meta2026, ``), frame2("result is missing required resultType")},

		// Several on one frame, in table order.
		{"W18, W21 together (warn-cache-bad-values)", complete(`,"ttlMs":-5,"cacheScope":"shared"`),
			frame2("ttlMs is -5"+negative, `cacheScope is "shared"`+undefined)},
		{"W17, W20 together", complete(`,"cacheScope":"","ttlMs":"x"`), frame2(`ttlMs is "x"`+notInt, empty)},
		{"W19, W22 together", complete(`,"cacheScope":false`), frame2("cacheScope is false"+notString, "cacheable tools/list"+noTTL)},
		{"W13 then the cache rules", list(meta2026, `,"ttlMs":-1`), frame2("result is missing required resultType", "ttlMs is -1"+negative)},

		// The gate.
		{"gate: revision below 2026-07-28", list(revMeta("2025-11-25", "{}"), `,"resultType":"complete","ttlMs":-5,"cacheScope":""`), nil},
		{"gate: a legacy request declares nothing", list(``, `,"resultType":"complete","ttlMs":-5,"cacheScope":""`), nil},
		{"gate: a later revision applies", list(revMeta("2026-12-01", "{}"), `,"resultType":"complete","ttlMs":-5`), frame2("ttlMs is -5" + negative)},
		{"gate: a method that is not cacheable",
			[]string{"c2s 0 " + toolCall("1", "t", meta2026), "s2c 1 " + rpcResult("1", `{"resultType":"complete","content":[],"ttlMs":-5,"cacheScope":""}`)}, nil},
		{"gate: resultType other than complete",
			[]string{"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///a",`+meta2026+`}`),
				"s2c 1 " + rpcResult("1", `{"resultType":"input_required","requestState":"s","ttlMs":-5,"cacheScope":""}`)}, nil},
		{"gate: resultType task", list(meta2026, `,"resultType":"task","ttlMs":-5,"cacheScope":""`), nil},
		{"gate: an invalid resultType is W14's alone", list(meta2026, `,"resultType":7,"ttlMs":-5`), frame2("result has an invalid resultType")},
		{"gate: an error answer", []string{"c2s 0 " + rpcRequest("1", "tools/list", "{"+meta2026+"}"), "s2c 1 " + rpcError("1", -32603, "x")}, nil},
		{"gate: an MRTR retry request that linked nothing",
			[]string{"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///a","requestState":"zz",`+meta2026+`}`),
				"s2c 1 " + rpcResult("1", `{"resultType":"complete","contents":[],"ttlMs":-5}`)}, nil},
		{"gate: the answer to a linked MRTR retry",
			[]string{"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///a",`+revMeta("2026-07-28", `{"elicitation":{}}`)+`}`),
				"s2c 1 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 2 " + rpcRequest("2", "resources/read", `{"uri":"file:///a",`+retryParams(`"S1"`, "q")+`,`+meta2026+`}`),
				"s2c 3 " + rpcResult("2", `{"resultType":"complete","contents":[]}`)}, nil},
		{"gate: null MRTR members are no retry",
			[]string{"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///a","requestState":null,"inputResponses":null,`+meta2026+`}`),
				"s2c 1 " + rpcResult("1", `{"resultType":"complete","contents":[]}`)},
			frame2("cacheable resources/read" + noTTL)},

		// A re-fetch inside the ttl window is no warning.
		{"a re-fetch inside the ttl window",
			[]string{"c2s 0 " + rpcRequest("1", "tools/list", "{"+meta2026+"}"),
				"s2c 10 " + rpcResult("1", `{"resultType":"complete","tools":[],"ttlMs":60000}`),
				"c2s 20 " + rpcRequest("2", "tools/list", "{"+meta2026+"}"),
				"s2c 30 " + rpcResult("2", `{"resultType":"complete","tools":[],"ttlMs":60000}`)}, nil},
	}
	// Every cacheable method gets W22.
	for _, method := range []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"} {
		tests = append(tests, struct {
			name   string
			frames []string
			want   []string
		}{"W22 on " + method,
			[]string{"c2s 0 " + rpcRequest("1", method, "{"+meta2026+"}"), "s2c 1 " + rpcResult("1", `{"resultType":"complete"}`)},
			frame2("cacheable " + method + noTTL)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", answerWarnings(t, tt.frames...), tt.want)
		})
	}
}

// TestCacheScopeAcrossPages covers W23: a later page of a paginated list
// must keep the scope of the page that issued its cursor.
func TestCacheScopeAcrossPages(t *testing.T) {
	const tail = " on the first, and 2026-07-28 requires one scope per list request"
	// page is a list request (cursor "" for the first page) and its answer.
	page := func(id, method, cursor, scope, next string) []string {
		params := meta2026
		if cursor != "" {
			params = `"cursor":"` + cursor + `",` + params
		}
		result := `{"resultType":"complete","items":[],"ttlMs":1000`
		if scope != "" {
			result += `,"cacheScope":` + scope
		}
		if next != "" {
			result += `,"nextCursor":"` + next + `"`
		}
		return []string{"c2s 0 " + rpcRequest(id, method, "{"+params+"}"), "s2c 1 " + rpcResult(id, result+"}")}
	}
	pages := func(ps ...[]string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		{"W23 fires on a second page with another scope (warn-cache-scope-across-pages)",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "c2", `"private"`, "")),
			[]string{`session s line 4: cacheScope "private" on a later page of prompts/list disagrees with "public"` + tail}},
		{"W23 fires for each paginated method",
			pages(page("1", "tools/list", "", `"private"`, "c2"), page("2", "tools/list", "c2", `"public"`, ""),
				page("3", "resources/list", "", `"private"`, "c2"), page("4", "resources/list", "c2", `"public"`, ""),
				page("5", "resources/templates/list", "", `"private"`, "c2"), page("6", "resources/templates/list", "c2", `"public"`, "")),
			[]string{
				`session s line 4: cacheScope "public" on a later page of tools/list disagrees with "private"` + tail,
				`session s line 8: cacheScope "public" on a later page of resources/list disagrees with "private"` + tail,
				`session s line 12: cacheScope "public" on a later page of resources/templates/list disagrees with "private"` + tail,
			}},
		{"W23 compares with the page that issued the cursor",
			pages(page("1", "tools/list", "", `"public"`, "c2"), page("2", "tools/list", "c2", `"public"`, "c3"), page("3", "tools/list", "c3", `"private"`, "")),
			[]string{`session s line 6: cacheScope "private" on a later page of tools/list disagrees with "public"` + tail}},
		{"W23 compares undefined scopes too, after W21",
			pages(page("1", "tools/list", "", `"public"`, "c2"), page("2", "tools/list", "c2", `"shared"`, "")),
			[]string{`session s line 4: cacheScope is "shared", and 2026-07-28 defines only public and private, ` +
				`cacheScope "shared" on a later page of tools/list disagrees with "public"` + tail}},
		{"W23 passes on the same scope",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "c2", `"public"`, "")), nil},
		{"W23 passes when the first page declared no scope",
			pages(page("1", "prompts/list", "", "", "c2"), page("2", "prompts/list", "c2", `"private"`, "")), nil},
		{"W23 passes when the later page declares no scope",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "c2", "", "")), nil},
		{"W23 passes on an empty later scope, which is W20's",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "c2", `""`, "")),
			[]string{"session s line 4: cacheScope is empty, and 2026-07-28 defines only public and private"}},
		{"W23 passes on a cursor of another method",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "tools/list", "c2", `"private"`, "")), nil},
		{"W23 passes on a cursor no page issued",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "c9", `"private"`, "")), nil},
		{"W23 passes on a new first page",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "", `"private"`, "")), nil},
		{"W23 follows the latest page that issued a cursor",
			pages(page("1", "prompts/list", "", `"public"`, "c2"), page("2", "prompts/list", "", `"private"`, "c2"),
				page("3", "prompts/list", "c2", `"private"`, "")), nil},
		{"W23 gate: a first page below 2026-07-28 issues nothing",
			pages([]string{"c2s 0 " + rpcRequest("1", "prompts/list", "{"+revMeta("2025-11-25", "{}")+"}"),
				"s2c 1 " + rpcResult("1", `{"prompts":[],"cacheScope":"public","nextCursor":"c2"}`)},
				page("2", "prompts/list", "c2", `"private"`, "")), nil},
		{"W23 gate: a later page below 2026-07-28",
			pages(page("1", "prompts/list", "", `"public"`, "c2"),
				[]string{"c2s 0 " + rpcRequest("2", "prompts/list", `{"cursor":"c2"}`),
					"s2c 1 " + rpcResult("2", `{"prompts":[],"cacheScope":"private"}`)}), nil},
		{"W23 not for resources/read",
			pages(page("1", "resources/read", "", `"public"`, "c2"), page("2", "resources/read", "c2", `"private"`, "")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", answerWarnings(t, tt.frames...), tt.want)
		})
	}
}
