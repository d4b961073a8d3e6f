package schemacheck

import (
	"sync"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
)

// Most frames of a capture look alike: tool calls whose arguments differ,
// results whose text differs. The schema cannot tell them apart, so once
// one of them has validated, the others of the same shape are known to.
//
// A message's shape is the message as the validator sees it, with every
// string the schema cannot care about emptied: a string's content matters
// to a schema only through const or enum (no MCP schema has pattern,
// length, content or asserted format keywords on strings, and no const or
// enum holds an object or an array: TestSchemasConstrainNoStringContent),
// so only strings under a property some definition gives a const or an
// enum (type, method, role, level, action, ...) are kept, and resultType,
// which chooses a result's definition. Likewise a number's value is kept
// only under a property some definition gives a const, an enum, a bound, a
// multipleOf or the integer type (progress and total are not). Keys,
// booleans, nulls, array lengths and nesting are all kept, and the parts
// the decoder stubs (tools/call arguments, structuredContent, an integer
// id) are stubbed the same way. Two messages of one shape, kind, sender,
// method and revision get the same verdict; the cache remembers only the
// shapes that validated, so a faulty message is always validated in full
// and its issues are its own.

// maxShape is the longest shape remembered; maxShapes how many.
const (
	maxShape  = 1024
	maxShapes = 4096
)

// shapeCache remembers the shapes of one revision that validated.
type shapeCache struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

func (c *shapeCache) has(key []byte) bool {
	c.mu.RLock()
	_, ok := c.m[string(key)] // no copy of key for the lookup
	c.mu.RUnlock()
	return ok
}

func (c *shapeCache) add(key []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]struct{}{}
	}
	if len(c.m) < maxShapes {
		c.m[string(key)] = struct{}{}
	}
}

// size is how many shapes are remembered.
func (c *shapeCache) size() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// constrainsString and constrainsNumber say whether one schema node looks
// at a string's or a number's value (beyond its type).
func constrainsString(n map[string]any) bool {
	_, c := n["const"]
	_, e := n["enum"]
	return c || e
}

func constrainsNumber(n map[string]any) bool {
	if constrainsString(n) {
		return true
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if _, ok := n[k]; ok {
			return true
		}
	}
	switch t := n["type"].(type) {
	case string:
		return t == "integer"
	case []any:
		for _, e := range t {
			if e == "integer" {
				return true
			}
		}
	}
	return false
}

// sensitiveKeys lists the property names whose value some definition of
// the schema looks at (per looks: directly, or through anyOf, oneOf, allOf,
// not, if/then/else, items or a $ref), and reports whether a map of
// arbitrary keys does (then every value counts).
func sensitiveKeys(defs map[string]any, looks func(map[string]any) bool) (map[string]bool, bool) {
	keys := map[string]bool{}
	anyKey := false
	var constrains func(n any, seen map[string]bool) bool
	constrains = func(n any, seen map[string]bool) bool {
		switch v := n.(type) {
		case []any:
			for _, e := range v {
				if constrains(e, seen) {
					return true
				}
			}
		case map[string]any:
			if looks(v) {
				return true
			}
			if ref := refName(v); ref != "" && !seen[ref] {
				seen[ref] = true
				if constrains(defs[ref], seen) {
					return true
				}
			}
			for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "not", "if", "then", "else", "items", "contains", "additionalItems"} {
				if sub, ok := v[k]; ok && constrains(sub, seen) {
					return true
				}
			}
		}
		return false
	}
	var walk func(n any)
	walk = func(n any) {
		switch v := n.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, sub := range v {
				switch k {
				case "const", "enum", "default", "examples":
					continue // data
				case "properties":
					props, _ := sub.(map[string]any)
					for name, s := range props {
						if constrains(s, map[string]bool{}) {
							keys[name] = true
						}
						walk(s)
					}
					continue
				case "additionalProperties", "patternProperties", "unevaluatedProperties":
					if constrains(sub, map[string]bool{}) {
						anyKey = true
					}
				}
				walk(sub)
			}
		}
	}
	walk(defs)
	// Validate itself reads this one to choose a result's definition.
	keys["resultType"] = true
	return keys, anyKey
}

// shaper writes a message's shape.
type shaper struct {
	b       []byte
	out     []byte
	strKeys map[string]bool // strings whose value counts
	anyStr  bool
	numKeys map[string]bool // numbers whose value counts
	anyNum  bool
	tooLong bool
}

// shape returns the shape of msg's raw bytes, or false when it is too
// long to remember.
func (r *revision) shape(m *wire.Message, buf []byte) ([]byte, bool) {
	s := shaper{b: m.Raw, out: buf[:0], strKeys: r.strKeys, anyStr: r.anyStr, numKeys: r.numKeys, anyNum: r.anyNum}
	s.out = append(s.out, byte('0'+m.Kind), byte('0'+m.Sender))
	if m.TaskAugmented {
		s.out = append(s.out, 't')
	}
	s.out = append(s.out, m.Method...)
	s.out = append(s.out, 0)
	i := jsonwalk.SkipWS(s.b, 0)
	if i >= len(s.b) || s.b[i] != '{' {
		return nil, false
	}
	paramsSkip := ""
	if m.Kind == wire.Request && m.Method == "tools/call" {
		paramsSkip = "arguments"
	}
	s.out = append(s.out, '{')
	jsonwalk.Members(s.b, i, func(ks, ke, vs int) int {
		key := s.b[ks:ke]
		s.out = append(s.out, key...)
		s.out = append(s.out, ':')
		end := jsonwalk.SkipValue(s.b, vs)
		switch name := unquoted(key); {
		case name == "id" && isInteger(s.b[vs:end]):
			s.out = append(s.out, 'I')
		case name == "params" && s.b[vs] == '{':
			s.object(vs, paramsSkip)
		case name == "result" && s.b[vs] == '{':
			s.object(vs, "structuredContent")
		default:
			s.value(vs, name)
		}
		s.out = append(s.out, ',')
		return end
	})
	s.out = append(s.out, '}')
	if s.tooLong || len(s.out) > maxShape {
		return nil, false
	}
	return s.out, true
}

// value writes the shape of the value at b[i], found under key.
func (s *shaper) value(i int, key string) int {
	if len(s.out) > maxShape {
		s.tooLong = true
		return jsonwalk.SkipValue(s.b, i)
	}
	switch s.b[i] {
	case '{':
		return s.object(i, "")
	case '[':
		s.out = append(s.out, '[')
		i = jsonwalk.SkipWS(s.b, i+1)
		for i < len(s.b) && s.b[i] != ']' {
			i = jsonwalk.SkipWS(s.b, s.value(i, key))
			s.out = append(s.out, ',')
			if i < len(s.b) && s.b[i] == ',' {
				i = jsonwalk.SkipWS(s.b, i+1)
			}
		}
		s.out = append(s.out, ']')
		return min(i+1, len(s.b))
	case '"':
		end := jsonwalk.SkipString(s.b, i)
		if s.anyStr || s.strKeys[key] {
			s.out = append(s.out, s.b[i:end]...)
		} else {
			s.out = append(s.out, '"', '"')
		}
		return end
	case 't', 'f', 'n':
		end := jsonwalk.SkipValue(s.b, i)
		s.out = append(s.out, s.b[i:end]...)
		return end
	}
	end := jsonwalk.SkipValue(s.b, i)
	if s.anyNum || s.numKeys[key] {
		s.out = append(s.out, s.b[i:end]...)
	} else {
		s.out = append(s.out, '0')
	}
	return end
}

// object writes an object's shape; its member named skip becomes an empty
// value of its type, as the decoder makes it.
func (s *shaper) object(i int, skip string) int {
	s.out = append(s.out, '{')
	end := jsonwalk.Members(s.b, i, func(ks, ke, vs int) int {
		key := s.b[ks:ke]
		s.out = append(s.out, key...)
		s.out = append(s.out, ':')
		name := unquoted(key)
		if skip != "" && name == skip && s.b[vs] == '{' {
			s.out = append(s.out, "{},"...)
			return jsonwalk.SkipValue(s.b, vs)
		}
		if skip != "" && name == skip && s.b[vs] == '[' {
			s.out = append(s.out, "[],"...)
			return jsonwalk.SkipValue(s.b, vs)
		}
		e := s.value(vs, name)
		s.out = append(s.out, ',')
		return e
	})
	s.out = append(s.out, '}')
	return end
}

// unquoted is a key's name, decoded as the decoder decodes it.
func unquoted(key []byte) string {
	return (&decoder{b: key}).key(0, len(key))
}
