package capture

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"github.com/theory/jsonpath"
)

// Redaction must stay linear in the size of a message and never take the
// capture down. Key rules and value patterns are: one walk of the parsed
// message, RE2 on each string. JSONPath rules are not always: selecting
// with a descendant segment ($..key) builds the location of every node it
// passes, which costs the depth of each node; a message nested thousands
// deep makes that quadratic (a 240 KB message took 14 s and 1.4 GB). So
// before any path runs, its cost is estimated from one walk of the bytes,
// and a message whose estimate exceeds its budget (redactBudgetFactor times
// its size, plus a little, and never more than redactBudgetMax) is not
// redacted but withheld: logged as a
// skeleton that keeps its kind and id, marked redaction_skipped. A message
// too deep to parse at all is withheld the same way: the rules cannot be
// applied to it, and logging it as is could leak what they hide.

// redactBudgetFactor is how many units of path work per byte a message
// may cost.
const redactBudgetFactor = 16

// redactBudgetFloor is the budget every message has whatever its size.
const redactBudgetFloor = 1 << 16

// redactBudgetMax caps the budget whatever the message's size. Without it
// a message padded with one long string bought room for any shape beside
// it: a 9,990-deep message next to a 15 MiB string took $..k 1.74 GB. A
// unit is about one step of a located path or one decoded value, a few
// dozen bytes, so the cap keeps path rules within some hundred MB; a
// message past it is withheld.
const redactBudgetMax = 1 << 20

// jsonShape is what a walk of a JSON value's bytes tells about the cost of
// querying it: how many values it holds, and the sum of their depths.
type jsonShape struct {
	values   int
	depthSum int
}

// shapeOf walks raw once. Member names count as values: an overestimate
// by at most a factor of two.
func shapeOf(raw []byte) jsonShape {
	var sh jsonShape
	depth := 0
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '"':
			sh.values++
			sh.depthSum += depth
			i = jsonwalk.SkipString(raw, i)
			continue
		case '{', '[':
			sh.values++
			sh.depthSum += depth
			depth++
		case '}', ']':
			depth--
		case ' ', '\t', '\n', '\r', ',', ':':
		default:
			sh.values++
			sh.depthSum += depth
			for i < len(raw) && !tokenEnd(raw[i]) {
				i++
			}
			continue
		}
		i++
	}
	return sh
}

// tokenEnd reports whether c ends a number, true, false or null.
func tokenEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// pathCost estimates what selecting p costs on a value of shape sh. A path
// without a descendant segment visits each node at most a few times. Each
// descendant segment costs the values plus the sum of their depths, and
// one nested in another (in a filter) that times the mean depth again.
func pathCost(p *jsonpath.Path, sh jsonShape) float64 {
	n := float64(sh.values)
	k := strings.Count(p.String(), "..")
	if k == 0 {
		return 4 * n
	}
	mean := float64(sh.depthSum)/math.Max(n, 1) + 1
	return (n + float64(sh.depthSum)) * math.Pow(mean, float64(k-1))
}

// overBudget reports whether applying r's paths to raw would cost more
// than raw may.
func (r *Redactor) overBudget(raw []byte) bool {
	if len(r.paths) == 0 {
		return false
	}
	sh := shapeOf(raw)
	budget := float64(min(redactBudgetFactor*len(raw)+redactBudgetFloor, redactBudgetMax))
	cost := 0.0
	for _, p := range r.paths {
		if cost += pathCost(p, sh); cost > budget {
			return true
		}
	}
	return false
}

// withhold replaces a message redaction gave up on by its skeleton: the
// JSON-RPC members that say what it is and which call it belongs to
// (jsonrpc, id, method), and for an answer whether it failed (an error's
// code, a result's isError), so that a checker still settles its call.
// Keys come out sorted, as in any message redaction rewrites. A value that
// is not an object becomes the placeholder string.
func withhold(raw []byte) []byte {
	i := jsonwalk.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return []byte(strconv.Quote(RedactedValue))
	}
	var id, jsonrpc, method, code []byte
	hasResult, hasError, isError := false, false, false
	jsonwalk.Members(raw, i, func(ks, ke, vs int) int {
		ve := jsonwalk.SkipValue(raw, vs)
		v := raw[vs:ve]
		switch memberName(raw[ks:ke]) {
		case "id":
			if id == nil && len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9' || string(v) == "null") && validJSON(v) {
				id = v
			}
		case "jsonrpc":
			if jsonrpc == nil && len(v) > 0 && v[0] == '"' && validJSON(v) {
				jsonrpc = v
			}
		case "method":
			if method == nil && len(v) > 0 && v[0] == '"' && validJSON(v) {
				method = v
			}
		case "result":
			hasResult = true
			if len(v) > 0 && v[0] == '{' {
				jsonwalk.Members(v, 0, func(rks, rke, rvs int) int {
					rve := jsonwalk.SkipValue(v, rvs)
					if memberName(v[rks:rke]) == "isError" && string(v[rvs:rve]) == "true" {
						isError = true
					}
					return rve
				})
			}
		case "error":
			hasError = true
			if len(v) > 0 && v[0] == '{' {
				jsonwalk.Members(v, 0, func(eks, eke, evs int) int {
					eve := jsonwalk.SkipValue(v, evs)
					if c := v[evs:eve]; memberName(v[eks:eke]) == "code" && len(c) > 0 && (c[0] == '-' || c[0] >= '0' && c[0] <= '9') && validJSON(c) {
						code = c
					}
					return eve
				})
			}
		}
		return ve
	})
	var b bytes.Buffer
	b.WriteByte('{')
	member := func(name string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(name))
		b.WriteByte(':')
		b.Write(v)
	}
	if hasError {
		e := `{"message":"` + RedactedValue + `"}`
		if code != nil {
			e = `{"code":` + string(code) + `,"message":"` + RedactedValue + `"}`
		}
		member("error", []byte(e))
	}
	if id != nil {
		member("id", id)
	}
	if jsonrpc != nil {
		member("jsonrpc", jsonrpc)
	}
	if method != nil {
		member("method", method)
	}
	if hasResult {
		r := "{}"
		if isError {
			r = `{"isError":true}`
		}
		member("result", []byte(r))
	}
	b.WriteByte('}')
	return b.Bytes()
}
