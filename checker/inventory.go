package checker

import (
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/checker/toolschema"
	"github.com/tidwall/gjson"
)

// inventory is the tool set a session currently advertises, rebuilt from its
// tools/list answers: a listing without a cursor replaces it, a cursored one
// extends it, and within it the first definition of a name wins.
type inventory struct {
	listed   bool // at least one tools/list answer was seen
	complete bool // the latest page carried no nextCursor
	tools    []listedTool
	index    map[string]bool
}

type listedTool struct {
	name     string
	raw      []byte // the tool object as listed
	redacted bool   // the listing frame was rewritten by mcpsnoop's redaction
}

// onToolsList applies a tools/list answer (a late one too) to the
// inventory. Each tool it adds whose inputSchema root is not an object
// schema gets warning W16 on this frame.
func (s *session) onToolsList(fc *frameCtx, c *call) {
	m := &fc.msg
	// An error or an input_required answer lists nothing: the call is not
	// over yet, or it failed.
	if m.hasError || !m.hasResult || !m.result.IsObject() || m.resultType() == "input_required" {
		return
	}
	inv := &s.inv
	inv.listed = true
	if !c.cursored || inv.index == nil {
		inv.tools = nil
		inv.index = map[string]bool{}
	}
	redacted := fc.f.Redacted
	m.resultField("tools").ForEach(func(_, t gjson.Result) bool {
		name := t.Get("name")
		if !t.IsObject() || name.Type != gjson.String || inv.index[name.Str] {
			return true
		}
		inv.index[clone(name.Str)] = true
		inv.tools = append(inv.tools, listedTool{name: clone(name.Str), raw: []byte(t.Raw), redacted: redacted})
		if reason := toolschema.RootProblem(t, redacted); reason != "" {
			const tail = `, and 2026-07-28 requires one whose root type is "object"`
			fc.warn("W16", "tool <name> advertises <reason>"+tail, "tool "+strconv.Quote(name.Str)+" advertises "+reason+tail)
		}
		return true
	})
	next := m.resultField("nextCursor")
	inv.complete = !next.Exists() || next.Type == gjson.Null || (next.Type == gjson.String && next.Str == "")
}

// schemaFindings lists the observational schema kinds of the advertised
// tools, kinds in report order and tools in advertised order.
func (s *session) schemaFindings() []SchemaFinding {
	if !s.inv.listed {
		return nil
	}
	byKind := map[string][]string{}
	for _, t := range s.inv.tools {
		tool := gjson.ParseBytes(t.raw)
		for _, kind := range toolschema.Kinds(tool.Get("inputSchema"), tool.Get("outputSchema"), t.redacted) {
			byKind[kind] = append(byKind[kind], t.name)
		}
	}
	var out []SchemaFinding
	for _, kind := range toolschema.AllKinds {
		if tools := byKind[kind]; len(tools) > 0 {
			out = append(out, SchemaFinding{Kind: kind, Tools: tools})
		}
	}
	return out
}

// toolDefs returns the advertised tools as baseline definitions.
func (s *session) toolDefs() []tooldef.Tool {
	defs := make([]tooldef.Tool, 0, len(s.inv.tools))
	for _, t := range s.inv.tools {
		if d, ok := tooldef.Parse(t.raw); ok {
			defs = append(defs, d)
		}
	}
	return defs
}
