package serve

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// 2026-07-28 lets a tool bind an argument to an Mcp-Param-{Name} header
// ("x-mcp-header" in its input schema), which a server on HTTP must check
// against the body. A stdio server never sees the header, so the handler
// checks it, with the tool definitions it has seen the shared peer list:
// a tool it has not seen listed is not checked.

// paramBinding is one argument bound to a header.
type paramBinding struct {
	path   []string // property names from the arguments object down
	header string   // the {Name} of Mcp-Param-{Name}
}

// toolParams holds the bindings of the tools the shared peer listed.
type toolParams struct {
	mu    sync.Mutex
	tools map[string][]paramBinding
}

// learn reads a tools/list result.
func (t *toolParams) learn(result gjson.Result) {
	tools := result.Get("tools")
	if !tools.IsArray() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tools == nil {
		t.tools = map[string][]paramBinding{}
	}
	for _, tool := range tools.Array() {
		name := tool.Get("name")
		if name.Type != gjson.String {
			continue
		}
		t.tools[name.Str] = collectBindings(tool.Get("inputSchema.properties"), nil, nil)
	}
}

// collectBindings walks properties (through "properties" only, as the
// revision allows) for x-mcp-header annotations.
func collectBindings(props gjson.Result, prefix []string, out []paramBinding) []paramBinding {
	if !props.IsObject() {
		return out
	}
	props.ForEach(func(k, v gjson.Result) bool {
		path := append(append([]string(nil), prefix...), k.String())
		if h := v.Get("x-mcp-header"); h.Type == gjson.String && h.Str != "" {
			out = append(out, paramBinding{path: path, header: h.Str})
		}
		out = collectBindings(v.Get("properties"), path, out)
		return true
	})
	return out
}

// check applies a listed tool's bindings to a tools/call request.
func (t *toolParams) check(h http.Header, m message) *refusal {
	if m.method != "tools/call" {
		return nil
	}
	t.mu.Lock()
	bindings, known := t.tools[m.get("params.name").String()]
	t.mu.Unlock()
	if !known {
		return nil
	}
	args := m.get("params.arguments")
	for _, b := range bindings {
		name := "Mcp-Param-" + b.header
		arg := lookupArg(args, b.path)
		header := h.Values(name)
		where := strings.Join(b.path, ".")
		if !arg.Exists() || arg.Type == gjson.Null {
			if len(header) > 0 {
				return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is given for argument %q, which is absent or null", name, where)
			}
			continue
		}
		if len(header) == 0 {
			return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is missing for argument %q", name, where)
		}
		got, ok := headerValue(h, name)
		if !ok {
			return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header is not a valid value (invalid characters or base64)", name)
		}
		if !paramEqual(got, arg) {
			return refuse(http.StatusBadRequest, codeHeaderMismatch, "the %s header %q does not match argument %q", name, got, where)
		}
	}
	return nil
}

// lookupArg follows path down the arguments object.
func lookupArg(args gjson.Result, path []string) gjson.Result {
	cur := args
	for _, p := range path {
		if !cur.IsObject() {
			return gjson.Result{}
		}
		var next gjson.Result
		cur.ForEach(func(k, v gjson.Result) bool {
			if k.String() == p {
				next = v
				return false
			}
			return true
		})
		cur = next
	}
	return cur
}

// paramEqual compares a header's (decoded) value with the argument: a
// string as it is, a boolean as true or false, an integer as a number
// (within JavaScript's safe range); anything else never matches.
func paramEqual(header string, arg gjson.Result) bool {
	switch arg.Type {
	case gjson.String:
		return header == arg.Str
	case gjson.True:
		return header == "true"
	case gjson.False:
		return header == "false"
	case gjson.Number:
		const safe = 1<<53 - 1
		v := arg.Num
		if v != math.Trunc(v) || math.Abs(v) > safe {
			return false
		}
		hv, err := strconv.ParseFloat(header, 64)
		return err == nil && hv == v
	}
	return false
}
