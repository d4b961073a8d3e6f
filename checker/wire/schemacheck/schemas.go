package schemacheck

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The specification's schema.json of each revision, unchanged.
//
//go:embed schemas/*.json
var schemaFS embed.FS

// schemaBase is the (never fetched) URL a revision's schema is known by
// inside the compiler.
const schemaBase = "https://schema.mcpsnoop.invalid/"

// revision is one protocol revision's schema: its method tables, read from
// the schema document, and the definitions compiled so far.
type revision struct {
	name string

	once sync.Once
	err  error
	defs map[string]any // definition name -> its schema, as decoded
	ptr  string         // "definitions" (draft-07) or "$defs" (2020-12)

	// Who sends which method, and the definition of each.
	clientRequests, serverRequests           map[string]string
	clientNotifications, serverNotifications map[string]string
	// resultOf maps a request definition to the definition of its result.
	resultOf map[string]string
	// inputRequired holds the methods whose answer may be an
	// InputRequiredResult (2026-07-28).
	inputRequired map[string]bool
	// Envelope definitions.
	envRequest, envNotification, envResult, envError string

	// Shapes (see shape.go): the properties whose strings and numbers the
	// schema reads, and the shapes known to validate.
	strKeys, numKeys map[string]bool
	anyStr, anyNum   bool
	shapes           shapeCache

	mu       sync.Mutex // guards compiler and compiled
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var revisions = func() map[string]*revision {
	m := map[string]*revision{}
	for _, r := range wire.Revisions {
		m[r] = &revision{name: r}
	}
	return m
}()

// load reads the revision's schema and its tables, once.
func (r *revision) load() error {
	r.once.Do(func() { r.err = r.read() })
	return r.err
}

func (r *revision) read() error {
	data, err := schemaFS.ReadFile("schemas/" + r.name + ".json")
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schema %s: %w", r.name, err)
	}
	root, _ := doc.(map[string]any)
	r.ptr = "$defs"
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		r.ptr = "definitions"
		defs, _ = root["definitions"].(map[string]any)
	}
	if defs == nil {
		return fmt.Errorf("schema %s holds no definitions", r.name)
	}
	r.defs = defs
	if missed := applyErrata(r.name, defs); len(missed) > 0 {
		return fmt.Errorf("schema %s: an erratum found no %s to correct", r.name, strings.Join(missed, ", "))
	}

	c, err := newCompiler(r.name, doc)
	if err != nil {
		return err
	}
	r.compiler = c
	r.compiled = map[string]*jsonschema.Schema{}

	r.strKeys, r.anyStr = sensitiveKeys(defs, constrainsString)
	r.numKeys, r.anyNum = sensitiveKeys(defs, constrainsNumber)
	r.clientRequests = r.union("ClientRequest")
	r.serverRequests = r.union("ServerRequest")
	r.clientNotifications = r.union("ClientNotification")
	r.serverNotifications = r.union("ServerNotification")
	r.resultOf = map[string]string{}
	r.inputRequired = map[string]bool{}
	for _, table := range []map[string]string{r.clientRequests, r.serverRequests} {
		for method, def := range table {
			r.resultOf[def] = r.resultDefinition(def)
			if r.allowsInputRequired(def) {
				r.inputRequired[method] = true
			}
		}
	}
	r.envRequest, r.envNotification = "JSONRPCRequest", "JSONRPCNotification"
	r.envResult, r.envError = "JSONRPCResultResponse", "JSONRPCErrorResponse"
	if _, ok := defs[r.envResult]; !ok {
		r.envResult, r.envError = "JSONRPCResponse", "JSONRPCError"
	}
	for _, d := range []string{r.envRequest, r.envNotification, r.envResult, r.envError, "Result"} {
		if _, ok := defs[d]; !ok {
			return fmt.Errorf("schema %s has no %s", r.name, d)
		}
	}
	return nil
}

// newCompiler holds a revision's schema document.
func newCompiler(rev string, doc any) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	// format is an annotation in draft 2020-12 and optional in draft-07,
	// which this library asserts by default. The same message must read
	// the same under every revision, so no revision asserts it.
	for _, name := range []string{"uri", "uri-reference", "uri-template", "byte", "date-time", "email"} {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	if err := c.AddResource(schemaBase+rev+".json", doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", rev, err)
	}
	return c, nil
}

// union returns, for a union of messages (ClientRequest and the like), each
// member's method and the name of its definition. A union that is missing
// (2026-07-28 has no ServerRequest) is empty; one that inlines a single
// message is matched to the named definition of that method.
func (r *revision) union(name string) map[string]string {
	out := map[string]string{}
	u, _ := r.defs[name].(map[string]any)
	if u == nil {
		return out
	}
	var members []string
	if alts, ok := u["anyOf"].([]any); ok {
		for _, m := range alts {
			if ref := refName(m); ref != "" {
				members = append(members, ref)
			}
		}
	} else if ref := refName(u); ref != "" {
		members = append(members, ref)
	} else if method := methodConst(u); method != "" {
		members = append(members, r.definitionOf(method, name))
	}
	for _, def := range members {
		if method := methodConst(r.defs[def]); method != "" {
			out[method] = def
		}
	}
	return out
}

// definitionOf finds the named definition (other than skip) of a message
// with the given method, the first in name order.
func (r *revision) definitionOf(method, skip string) string {
	names := make([]string, 0, len(r.defs))
	for n := range r.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n != skip && methodConst(r.defs[n]) == method {
			return n
		}
	}
	return skip
}

// resultDefinition names the definition of the result of a request
// definition: FooRequest answers with FooResult; a request with no result
// of its own (ping, logging/setLevel, resources/subscribe) with the empty
// result.
func (r *revision) resultDefinition(request string) string {
	if res := strings.TrimSuffix(request, "Request") + "Result"; res != request+"Result" {
		if _, ok := r.defs[res]; ok {
			return res
		}
	}
	if _, ok := r.defs["EmptyResult"]; ok {
		return "EmptyResult"
	}
	return "Result"
}

// allowsInputRequired reports whether the response definition of a request
// (FooResultResponse) lets its result be an InputRequiredResult.
func (r *revision) allowsInputRequired(request string) bool {
	resp, _ := r.defs[strings.TrimSuffix(request, "Request")+"ResultResponse"].(map[string]any)
	props, _ := resp["properties"].(map[string]any)
	result, _ := props["result"].(map[string]any)
	alts, _ := result["anyOf"].([]any)
	for _, a := range alts {
		if refName(a) == "InputRequiredResult" {
			return true
		}
	}
	return false
}

// includesEnvelope reports whether a message definition spells out the
// JSON-RPC envelope itself (2025-11-25 on); older ones give only method and
// params, and their messages are checked against the envelope too.
func (r *revision) includesEnvelope(def string) bool {
	d, _ := r.defs[def].(map[string]any)
	props, _ := d["properties"].(map[string]any)
	_, ok := props["jsonrpc"]
	return ok
}

// has reports whether the revision defines name.
func (r *revision) has(name string) bool {
	_, ok := r.defs[name]
	return ok
}

// schema returns the compiled definition, compiling it the first time.
func (r *revision) schema(def string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.compiled[def]; s != nil {
		return s, nil
	}
	s, err := r.compiler.Compile(schemaBase + r.name + ".json#/" + r.ptr + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("schema %s: compiling %s: %w", r.name, def, err)
	}
	r.compiled[def] = s
	return s, nil
}

// refName is the definition a {"$ref": "#/.../Name"} names, "" otherwise.
func refName(v any) string {
	m, _ := v.(map[string]any)
	ref, _ := m["$ref"].(string)
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ""
}

// methodConst is properties.method.const of a message definition.
func methodConst(v any) string {
	m, _ := v.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	method, _ := props["method"].(map[string]any)
	c, _ := method["const"].(string)
	return c
}
