package checker

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestDeprecationNote(t *testing.T) {
	const (
		roots    = "roots is deprecated (2026-07-28); use tool parameters, resource URIs, or server configuration instead"
		sampling = "sampling is deprecated (2026-07-28); integrate directly with an LLM provider API instead"
		logging  = "logging is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead"
		message  = "logging notifications/message is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead"
		c32002   = "error code -32002 (resource not found) is retired (2026-07-28); use -32602 invalid params instead"
		c32042   = "error code -32042 (URL elicitation required) was defined only in 2025-11-25 and is retired"
	)
	tests := []struct {
		name          string
		method        string
		inputRequired bool
		inputRequests string // "" = absent
		errVal        string // "" = absent
		params        string // "" = absent
		want          string
	}{
		// includeContext (SEP-2596's registry), beside sampling's own note.
		{name: "includeContext thisServer", method: "sampling/createMessage", params: `{"includeContext":"thisServer"}`, want: sampling + "; " + noteIncludeContext},
		{name: "includeContext allServers", method: "sampling/createMessage", params: `{"includeContext":"allServers"}`, want: sampling + "; " + noteIncludeContext},
		{name: "includeContext none", method: "sampling/createMessage", params: `{"includeContext":"none"}`, want: sampling},
		{name: "includeContext inside inputRequests", inputRequired: true,
			inputRequests: `{"a":{"method":"sampling/createMessage","params":{"includeContext":"allServers"}}}`, want: sampling + "; " + noteIncludeContext},
		// Rule 1: the frame's own method.
		{name: "roots/list", method: "roots/list", want: roots},
		{name: "roots/anything", method: "roots/other", want: roots},
		{name: "notifications/roots/list_changed", method: "notifications/roots/list_changed", want: roots},
		{name: "sampling/createMessage", method: "sampling/createMessage", want: sampling},
		{name: "logging/setLevel", method: "logging/setLevel", want: logging},
		{name: "notifications/message", method: "notifications/message", want: message},
		{name: "no note: tools/call", method: "tools/call", want: ""},
		{name: "no note: elicitation/create", method: "elicitation/create", want: ""},
		{name: "no note: bare roots", method: "roots", want: ""},
		{name: "no note: notifications/roots without slash", method: "notifications/roots", want: ""},
		{name: "no note: notifications/sampling/x", method: "notifications/sampling/x", want: ""},
		{name: "no note: notifications/logging/x", method: "notifications/logging/x", want: ""},
		{name: "no note: notifications/message/x", method: "notifications/message/x", want: ""},
		{name: "no note: notifications/messages", method: "notifications/messages", want: ""},
		{name: "no note: case matters", method: "Roots/list", want: ""},
		{name: "no note: prefix inside", method: "x/roots/list", want: ""},
		{name: "empty", want: ""},
		{name: "method wins over error code", method: "logging/setLevel", errVal: `{"code":-32002,"message":"m"}`, want: logging},
		{name: "method wins over inner requests", method: "sampling/createMessage", inputRequired: true, inputRequests: `{"a":{"method":"roots/list"}}`, want: sampling},

		// Rule 2: input_required inner methods.
		{name: "one inner roots", inputRequired: true, inputRequests: `{"a":{"method":"roots/list"}}`, want: roots},
		{name: "unsorted inner methods with a duplicate", inputRequired: true, inputRequests: `{"a":{"method":"sampling/createMessage"},"b":{"method":"sampling/createMessage"},"c":{"method":"roots/list"}}`, want: roots + "; " + sampling},
		{name: "keys sorted against methods", inputRequired: true, inputRequests: `{"a":{"method":"sampling/createMessage"},"z":{"method":"roots/list"}}`, want: roots + "; " + sampling},
		{name: "two methods with one note", inputRequired: true, inputRequests: `{"a":{"method":"sampling/zzz"},"b":{"method":"roots/list"},"c":{"method":"sampling/createMessage"}}`, want: roots + "; " + sampling},
		{name: "all four inner notes in method order", inputRequired: true, inputRequests: `{"a":{"method":"sampling/createMessage"},"b":{"method":"notifications/message"},"c":{"method":"logging/setLevel"},"d":{"method":"roots/list"},"e":{"method":"notifications/roots/list_changed"}}`, want: logging + "; " + message + "; " + roots + "; " + sampling},
		{name: "elicitation alone has no note", inputRequired: true, inputRequests: `{"a":{"method":"elicitation/create"}}`, want: ""},
		{name: "elicitation skipped", inputRequired: true, inputRequests: `{"e":{"method":"elicitation/create"},"s":{"method":"sampling/createMessage"}}`, want: sampling},
		{name: "not input_required", inputRequired: false, inputRequests: `{"a":{"method":"roots/list"}}`, want: ""},
		{name: "no inputRequests", inputRequired: true, want: ""},
		{name: "inputRequests not an object", inputRequired: true, inputRequests: `[{"method":"roots/list"}]`, want: ""},
		{name: "inner value not an object", inputRequired: true, inputRequests: `{"a":"roots/list","b":null}`, want: ""},
		{name: "inner method not a string", inputRequired: true, inputRequests: `{"a":{"method":1},"b":{"params":{}}}`, want: ""},
		{name: "inner without note falls to the error code", inputRequired: true, inputRequests: `{"a":{"method":"elicitation/create"}}`, errVal: `{"code":-32042,"message":"m"}`, want: c32042},
		{name: "inner note wins over error code", inputRequired: true, inputRequests: `{"a":{"method":"roots/list"}}`, errVal: `{"code":-32002,"message":"m"}`, want: roots},

		// Rule 3: retired error codes.
		{name: "-32002", errVal: `{"code":-32002,"message":"not found"}`, want: c32002},
		{name: "-32042", errVal: `{"code":-32042,"message":"url"}`, want: c32042},
		{name: "-32002 as a float", errVal: `{"code":-32002.0,"message":"m"}`, want: c32002},
		{name: "other code", errVal: `{"code":-32602,"message":"m"}`, want: ""},
		{name: "code as a string", errVal: `{"code":"-32002","message":"m"}`, want: ""},
		{name: "no code", errVal: `{"message":"m"}`, want: ""},
		{name: "error not an object", errVal: `-32002`, want: ""},
		{name: "error null", errVal: `null`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ir, ev gjson.Result
			if tt.inputRequests != "" {
				ir = gjson.Parse(tt.inputRequests)
			}
			if tt.errVal != "" {
				ev = gjson.Parse(tt.errVal)
			}
			var params gjson.Result
			if tt.params != "" {
				params = gjson.Parse(tt.params)
			}
			if got := deprecationNote(tt.method, params, tt.inputRequired, ir, ev); got != tt.want {
				t.Errorf("deprecationNote(%q, %v, %s, %s) =\n  %q\nwant\n  %q", tt.method, tt.inputRequired, tt.inputRequests, tt.errVal, got, tt.want)
			}
		})
	}
}
