package security

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A Field is one text a server told the model, and where it is.
type Field struct {
	// Pointer is the JSON pointer of the text in the message.
	Pointer string
	// Subject names what holds it for a reader: `tool "add" description`.
	Subject string
	// Tool is the tool (or prompt, resource) it belongs to, "" when none.
	Tool string
	Text string
}

// Lists are the methods whose results define what the model is offered.
var Lists = map[string]string{
	"tools/list": "tools", "prompts/list": "prompts",
	"resources/list": "resources", "resources/templates/list": "resourceTemplates",
}

// Results are the methods whose results carry content to the model.
var Results = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// singular names a listed item for a reader.
var singular = map[string]string{"tools": "tool", "prompts": "prompt", "resources": "resource", "resourceTemplates": "resource template"}

// DefinitionTexts lists the texts of a list result or an initialize
// result (its instructions); result is the message's "result" member.
func DefinitionTexts(method string, result gjson.Result) []Field {
	if method == "initialize" {
		if v := result.Get("instructions"); v.Type == gjson.String {
			return []Field{{Pointer: "/result/instructions", Subject: "server instructions", Text: v.Str}}
		}
		return nil
	}
	key := Lists[method]
	if key == "" {
		return nil
	}
	var out []Field
	each(result.Get(key), func(i int, item gjson.Result) {
		out = append(out, ItemTexts(item, singular[key], "/result/"+key+"/"+strconv.Itoa(i))...)
	})
	return out
}

// ItemTexts lists the texts of one listed tool, prompt or resource at
// pointer: its description and title, its annotations' strings, its
// arguments' descriptions, and the descriptions and titles anywhere in its
// input and output schemas.
func ItemTexts(item gjson.Result, kind, pointer string) []Field {
	if !item.IsObject() {
		return nil
	}
	name := item.Get("name").Str
	subject := kind + " " + strconv.Quote(name)
	var out []Field
	add := func(ptr, what, text string) {
		out = append(out, Field{Pointer: ptr, Subject: subject + " " + what, Tool: name, Text: text})
	}
	for _, k := range []string{"description", "title"} {
		if v := item.Get(k); v.Type == gjson.String {
			add(pointer+"/"+k, k, v.Str)
		}
	}
	item.Get("annotations").ForEach(func(k, v gjson.Result) bool {
		if v.Type == gjson.String {
			add(pointer+"/annotations/"+escape(k.Str), "annotation "+k.Str, v.Str)
		}
		return true
	})
	each(item.Get("arguments"), func(i int, a gjson.Result) {
		if v := a.Get("description"); v.Type == gjson.String {
			add(pointer+"/arguments/"+strconv.Itoa(i)+"/description", "argument "+strconv.Quote(a.Get("name").Str)+" description", v.Str)
		}
	})
	for _, k := range []string{"inputSchema", "outputSchema"} {
		schemaTexts(item.Get(k), pointer+"/"+k, func(ptr, prop, text string) {
			what := k + " description"
			if prop != "" {
				what = "property " + strconv.Quote(prop) + " description"
			}
			add(ptr, what, text)
		}, "", 0)
	}
	return out
}

// schemaTexts calls fn for every "description" and "title" string of a
// JSON schema, with the property it describes ("" for the root).
func schemaTexts(schema gjson.Result, pointer string, fn func(ptr, prop, text string), prop string, depth int) {
	if !schema.IsObject() || depth > 16 {
		return
	}
	schema.ForEach(func(k, v gjson.Result) bool {
		ptr := pointer + "/" + escape(k.Str)
		switch {
		case (k.Str == "description" || k.Str == "title") && v.Type == gjson.String:
			fn(ptr, prop, v.Str)
		case k.Str == "properties" || k.Str == "$defs" || k.Str == "definitions" || k.Str == "patternProperties":
			v.ForEach(func(name, sub gjson.Result) bool {
				schemaTexts(sub, ptr+"/"+escape(name.Str), fn, name.Str, depth+1)
				return true
			})
		case v.IsObject():
			schemaTexts(v, ptr, fn, prop, depth+1)
		case v.IsArray():
			each(v, func(i int, sub gjson.Result) {
				schemaTexts(sub, ptr+"/"+strconv.Itoa(i), fn, prop, depth+1)
			})
		}
		return true
	})
}

// ResultTexts lists the texts a tools/call, prompts/get or resources/read
// result hands the model: text content (embedded resources' too),
// structured content's strings, prompt messages and resource contents.
func ResultTexts(method, tool string, result gjson.Result) []Field {
	subject := method + " result"
	if tool != "" {
		subject = method + " " + strconv.Quote(tool) + " result"
	}
	var out []Field
	Strings(result, "/result", func(ptr, s string) {
		if !resultText(ptr) {
			return
		}
		out = append(out, Field{Pointer: ptr, Subject: subject, Tool: tool, Text: s})
	})
	return out
}

// resultText reports whether a string of a result is content for the
// model rather than protocol (types, MIME types, URIs, blobs, _meta).
func resultText(ptr string) bool {
	if strings.Contains(ptr, "/_meta") {
		return false
	}
	last := ptr[strings.LastIndexByte(ptr, '/')+1:]
	switch last {
	case "type", "mimeType", "uri", "blob", "data", "role", "annotations", "resultType", "name":
		return false
	}
	return true
}

// Strings calls fn for every string of v (values, not keys), with its
// JSON pointer below prefix, depth first, at most 64 levels deep.
func Strings(v gjson.Result, prefix string, fn func(ptr, s string)) {
	walk(v, prefix, fn, 0)
}

func walk(v gjson.Result, ptr string, fn func(ptr, s string), depth int) {
	switch {
	case v.Type == gjson.String:
		fn(ptr, v.Str)
	case depth >= 64:
	case v.IsObject():
		v.ForEach(func(k, sub gjson.Result) bool {
			walk(sub, ptr+"/"+escape(k.Str), fn, depth+1)
			return true
		})
	case v.IsArray():
		each(v, func(i int, sub gjson.Result) {
			walk(sub, ptr+"/"+strconv.Itoa(i), fn, depth+1)
		})
	}
}

// escape writes a JSON pointer reference token (RFC 6901).
func escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// each calls fn for every element of an array, with its index.
func each(arr gjson.Result, fn func(i int, v gjson.Result)) {
	if !arr.IsArray() {
		return
	}
	i := 0
	arr.ForEach(func(_, v gjson.Result) bool {
		fn(i, v)
		i++
		return true
	})
}
