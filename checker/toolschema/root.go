package toolschema

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// RootProblem returns the W16 reason for a tool object's inputSchema ("" when the root
// is an object schema or when the problem is only redaction's doing), from the list:
// `no inputSchema`; `an inputSchema that is not a JSON object`; `an inputSchema with a null root type`;
// `an inputSchema with no root type`; `an inputSchema with root type <t %q>`;
// `an inputSchema whose root type is not the string "object"`. Not reported when redacted
// and the schema or its type is the literal string "[REDACTED]".
func RootProblem(tool gjson.Result, redacted bool) string {
	var schema gjson.Result
	if tool.IsObject() {
		schema = tool.Get("inputSchema")
	}
	if !schema.Exists() {
		return "no inputSchema"
	}
	if redacted && schema.Type == gjson.String && schema.Str == redactedMarker {
		return ""
	}
	if !schema.IsObject() {
		return "an inputSchema that is not a JSON object"
	}
	t := schema.Get("type")
	switch {
	case !t.Exists():
		return "an inputSchema with no root type"
	case t.Type == gjson.Null:
		return "an inputSchema with a null root type"
	case t.Type != gjson.String:
		return `an inputSchema whose root type is not the string "object"`
	case t.Str == "object":
		return ""
	case redacted && t.Str == redactedMarker:
		return ""
	default:
		return fmt.Sprintf("an inputSchema with root type %q", t.Str)
	}
}
