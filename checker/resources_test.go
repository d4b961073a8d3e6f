package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestEmptyReadOfUnlistedResource: W51 (SEP-2164).
func TestEmptyReadOfUnlistedResource(t *testing.T) {
	req := func(id, method, params string) pf { return c2s(rpcRequest(id, method, `{`+params+hxMeta26+`}`)) }
	res := func(id, result string) pf { return s2c(rpcResult(id, `{"resultType":"complete",`+result+`}`)) }
	list := []pf{
		req("1", "resources/list", ""), res("1", `"resources":[{"uri":"file:///a.txt","name":"a"}],"ttlMs":0,"cacheScope":"private"`),
		req("2", "resources/templates/list", ""), res("2", `"resourceTemplates":[{"uriTemplate":"file:///logs/{day}.log","name":"logs"}],"ttlMs":0,"cacheScope":"private"`),
	}
	read := func(uri, contents string) []pf {
		return []pf{req("9", "resources/read", `"uri":"`+uri+`",`), res("9", `"contents":`+contents+`,"ttlMs":0,"cacheScope":"private"`)}
	}
	w51 := func(uri string) []string {
		return []string{`warn server resources/read of "` + uri + `", which no listing offers, answered with empty contents; 2026-07-28 requires -32602`}
	}
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"an unlisted URI answered empty", append(list, read("file:///missing.txt", `[]`)...), w51("file:///missing.txt")},
		{"a listed URI answered empty", append(list, read("file:///a.txt", `[]`)...), nil},
		{"a URI a listed template matches", append(list, read("file:///logs/2026-12-06.log", `[]`)...), nil},
		{"an unlisted URI with contents", append(list, read("file:///b.txt", `[{"uri":"file:///b.txt","text":"b"}]`)...), nil},
		{"no listing in the session: not judged", read("file:///missing.txt", `[]`), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range partyLines(check(t, checker.Config{}, partyLog("stdio", tc.frames...))) {
				if strings.Contains(l, "resources/read of") {
					got = append(got, l)
				}
			}
			sameLines(t, "findings", got, tc.want)
		})
	}
}
