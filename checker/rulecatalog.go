package checker

import "strings"

// ruleCatalog is every warn rule (W1-W45 as spec/check.md numbers them,
// W46-W49 and W60 ours; W50-W59 are assigned to rules to come), the server's -32020 mismatch (M1) and the wire rule, in
// id order. Since and HTTPOnly are the engine's gates, read off the rule
// files; spec paths are relative to a revision's root on
// modelcontextprotocol.io (built from the specification repository's
// layout: docs/specification/<revision>/<path>.mdx).
var ruleCatalog = []Rule{
	// JSON-RPC shape (check.md 3.3 A).
	jsonrpc("W1", "missing jsonrpc=2.0", "missing jsonrpc=2.0", "messages"),
	jsonrpc("W2", "jsonrpc must be 2.0", "jsonrpc must be 2.0", "messages"),
	jsonrpc("W3", "request id <raw number> is not an integer; MCP requires a string or integer id",
		"request id 1.5 is not an integer; MCP requires a string or integer id", "requests"),
	jsonrpc("W4", "request id is null; MCP requires a string or integer id",
		"request id is null; MCP requires a string or integer id", "requests"),
	jsonrpc("W5", "request id has type <boolean|array|object>; MCP requires a string or integer id",
		"request id has type boolean; MCP requires a string or integer id", "requests"),
	jsonrpc("W6", "result response id is null; it names no request", "result response id is null; it names no request", "responses"),
	jsonrpc("W7", "response has neither result nor error", "response has neither result nor error", "responses"),
	jsonrpc("W8", "response has both result and error", "response has both result and error", "responses"),

	// Responses (check.md 3.3 B): multi round-trip results.
	{ID: "W9", Family: familyMRTR,
		Text:    "InputRequiredResult on \"<method>\", which 2026-07-28 allows only on prompts/get, resources/read and tools/call",
		Example: `InputRequiredResult on "tools/list", which 2026-07-28 allows only on prompts/get, resources/read and tools/call`,
		Gate:    "an input_required result", spec: at("2026-07-28", "basic/patterns/mrtr#supported-requests")},
	{ID: "W10", Family: familyMRTR,
		Text:    "InputRequiredResult carries neither inputRequests nor requestState, and 2026-07-28 requires at least one",
		Example: "InputRequiredResult carries neither inputRequests nor requestState, and 2026-07-28 requires at least one",
		Gate:    "an input_required result", spec: at("2026-07-28", "basic/patterns/mrtr#inputrequiredresult")},
	{ID: "W11", Family: familyMRTR,
		Text:    "inputRequests names \"<method>\", and 2026-07-28 allows only elicitation/create, sampling/createMessage and roots/list",
		Example: `inputRequests names "tools/call", and 2026-07-28 allows only elicitation/create, sampling/createMessage and roots/list`,
		Gate:    "an input_required result", spec: at("2026-07-28", "basic/patterns/mrtr#inputrequiredresult")},
	{ID: "W12", Family: familyMRTR,
		Text:    "inputRequests asks for \"<method>\" while the request declared no <cap> capability",
		Example: `inputRequests asks for "elicitation/create" while the request declared no elicitation capability`,
		Gate:    "an input_required result to a request that declared its clientCapabilities", spec: at("2026-07-28", "basic/patterns/mrtr#server-requirements")},

	// Result types.
	{ID: "W13", Family: familyResultType, Since: rev20260728,
		Text: "result is missing required resultType", Example: "result is missing required resultType",
		Gate: "a result to a request that declared 2026-07-28 or later (not initialize)", spec: at("2026-07-28", "basic/index#resulttype")},
	{ID: "W14", Family: familyResultType, Since: rev20260728,
		Text: "result has an invalid resultType", Example: "result has an invalid resultType",
		Gate: "a result to a request that declared 2026-07-28 or later (not initialize)", spec: at("2026-07-28", "basic/index#resulttype")},

	// Tool definitions.
	{ID: "W15", Family: familyTools, Since: rev20260728, HTTPOnly: true,
		Text:    "tool \"<name>\" declares <reason>, so its Mcp-Param headers are not checked",
		Example: `tool "search" declares an empty x-mcp-header on property "region", so its Mcp-Param headers are not checked`,
		Gate:    "the tools/list answer to a request that declared 2026-07-28 or later", spec: at("2026-07-28", "server/tools#x-mcp-header")},
	{ID: "W16", Family: familyTools,
		Text:    `tool "<name>" advertises <reason>, and 2026-07-28 requires one whose root type is "object"`,
		Example: `tool "search" advertises an inputSchema with root type "array", and 2026-07-28 requires one whose root type is "object"`,
		Gate:    "a tools/list answer", spec: at("", "server/tools#tool")},

	// Cache hints (check.md 3.3 B, W17-W23).
	cache("W17", "ttlMs is <raw JSON>, which is not an integer", `ttlMs is "soon", which is not an integer`),
	cache("W18", "ttlMs is <n>, and 2026-07-28 requires a value of zero or more", "ttlMs is -1, and 2026-07-28 requires a value of zero or more"),
	cache("W19", "cacheScope is <raw JSON>, which is not a string", "cacheScope is 1, which is not a string"),
	cache("W20", "cacheScope is empty, and 2026-07-28 defines only public and private", "cacheScope is empty, and 2026-07-28 defines only public and private"),
	cache("W21", "cacheScope is \"<s>\", and 2026-07-28 defines only public and private", `cacheScope is "shared", and 2026-07-28 defines only public and private`),
	cache("W22", "cacheable <method> result declares no ttlMs, which 2026-07-28 requires", "cacheable tools/list result declares no ttlMs, which 2026-07-28 requires"),
	cache("W23", "cacheScope \"<later>\" on a later page of <method> disagrees with \"<first>\" on the first, and 2026-07-28 requires one scope per list request",
		`cacheScope "private" on a later page of tools/list disagrees with "public" on the first, and 2026-07-28 requires one scope per list request`),

	jsonrpc("W24", "response id has no matching request", "response id has no matching request", "responses"),
	jsonrpc("W25", "duplicate response for the same id", "duplicate response for the same id", "responses"),

	// Requests (check.md 3.3 C).
	mrtrRetry("W26", "MRTR retry is missing requestState"),
	mrtrRetry("W27", "MRTR retry invented requestState"),
	mrtrRetry("W28", "MRTR retry changed requestState"),
	jsonrpc("W29", "request reuses an id already in flight", "request reuses an id already in flight", "requests"),

	// Notifications (check.md 3.3 D).
	subscription("W30", "notification \"<m>\" carries no io.modelcontextprotocol/subscriptionId, which 2026-07-28 requires on a subscription stream",
		`notification "notifications/tools/list_changed" carries no io.modelcontextprotocol/subscriptionId, which 2026-07-28 requires on a subscription stream`),
	subscription("W31", "notification \"<m>\" arrived on subscription <id raw> before its acknowledgment, which 2026-07-28 requires first",
		`notification "notifications/tools/list_changed" arrived on subscription 7 before its acknowledgment, which 2026-07-28 requires first`),
	subscription("W32", "notification \"<m>\" was not requested by subscription <id raw>, and 2026-07-28 forbids sending a type the client did not ask for",
		`notification "notifications/resources/updated" was not requested by subscription 7, and 2026-07-28 forbids sending a type the client did not ask for`),
	{ID: "W33", Family: familySubscriptions,
		Text:    "progress notification for token <token raw JSON> arrived after its request completed, and <revision> requires them to stop",
		Example: `progress notification for token "t1" arrived after its request completed, and 2026-07-28 requires them to stop`,
		Gate:    "a notifications/progress, either direction", spec: progressPages},
	{ID: "W34", Family: familySubscriptions,
		Text:    "progress for token <token raw JSON> went from <prev> to <cur>, and <revision> requires it to increase with each notification",
		Example: `progress for token "t1" went from 2 to 1, and 2026-07-28 requires it to increase with each notification`,
		Gate:    "a notifications/progress, either direction", spec: progressPages},
	{ID: "W35", Family: familySubscriptions, Since: rev20260728,
		Text:    "server cancelled \"<method>\", and 2026-07-28 lets a server cancel only a subscriptions/listen request",
		Example: `server cancelled "tools/call", and 2026-07-28 lets a server cancel only a subscriptions/listen request`,
		Gate:    "a server's notifications/cancelled naming a request that declared 2026-07-28 or later", spec: at("2026-07-28", "basic/patterns/cancellation")},

	// Any frame (check.md 3.3 E): routing headers and per-request metadata.
	header("W36", "", "routing headers are invalid on a JSON-RPC batch", "routing headers are invalid on a JSON-RPC batch",
		"a batch element carrying Mcp-Method or Mcp-Name", "basic/transports/streamable-http#request-metadata"),
	header("W37", "", "routing header Mcp-Method <h> disagrees with body method <m>", "routing header Mcp-Method tools/list disagrees with body method tools/call",
		"a frame with an Mcp-Method header", "basic/transports/streamable-http#standard-request-headers"),
	header("W38", "", "routing header Mcp-Name \"<decoded>\" disagrees with body name \"<name>\"", `routing header Mcp-Name "fetch" disagrees with body name "search"`,
		"a frame with an Mcp-Name header", "basic/transports/streamable-http#standard-request-headers"),
	header("W39", "", "MCP-Protocol-Version header <h> disagrees with _meta protocolVersion <m>", "MCP-Protocol-Version header 2025-11-25 disagrees with _meta protocolVersion 2026-07-28",
		"a frame with an MCP-Protocol-Version header", "basic/transports/streamable-http#protocol-version-header"),
	header("W40", rev20260728, "required routing header <Header> is missing", "required routing header Mcp-Method is missing",
		"a client request (not in a batch) that declared 2026-07-28 or later", "basic/transports/streamable-http#standard-request-headers"),
	{ID: "W41", Family: familyHeaders, Since: rev20260728,
		Text:    "server sent a JSON-RPC request \"<m>\", which 2026-07-28 replaced with the MRTR pattern",
		Example: `server sent a JSON-RPC request "elicitation/create", which 2026-07-28 replaced with the MRTR pattern`,
		Gate:    "a session whose client already sent a request declaring 2026-07-28 or later", spec: at("2026-07-28", "basic/transports/streamable-http#receiving-messages")},
	{ID: "W42", Family: familyHeaders, Since: rev20260728,
		Text:    "client sent a JSON-RPC response, which 2026-07-28 no longer defines",
		Example: "client sent a JSON-RPC response, which 2026-07-28 no longer defines",
		Gate:    "a session whose client already sent a request declaring 2026-07-28 or later", spec: at("2026-07-28", "basic/transports/streamable-http#sending-messages")},
	{ID: "W43", Family: familyHeaders, Since: rev20260728,
		Text:    "request _meta is missing required io.modelcontextprotocol/clientCapabilities",
		Example: "request _meta is missing required io.modelcontextprotocol/clientCapabilities",
		Gate:    "a client request (not in a batch) that declared 2026-07-28 or later", spec: at("2026-07-28", "basic/index#meta")},
	{ID: "W44", Family: familyHeaders, Since: rev20260728,
		Text:    "request _meta is missing required io.modelcontextprotocol/protocolVersion",
		Example: "request _meta is missing required io.modelcontextprotocol/protocolVersion",
		Gate:    "a client request (not in a batch) that declared 2026-07-28 or later", spec: at("2026-07-28", "basic/index#meta")},
	header("W45", rev20260728, "routing header <H> ... body parameter \"<path>\" ... (seven variants: absent, missing, repeated, bad Base64, wrong type, unsafe integer, disagreeing value)",
		`routing header Mcp-Param-Region "eu" disagrees with body parameter "region" "us"`,
		"a tools/call of a tool whose advertised inputSchema binds x-mcp-header parameters", "basic/transports/streamable-http#custom-headers-from-tool-parameters"),
	{ID: "W46", Family: familyHeaders, HTTPOnly: true,
		Text:    "request Accept <accept> does not offer both application/json and text/event-stream, which Streamable HTTP requires",
		Example: `request Accept "application/json" does not offer both application/json and text/event-stream, which Streamable HTTP requires`,
		Gate:    "a client frame whose Accept header the capture recorded", spec: transportPages("sending-messages")},
	{ID: "W47", Family: familyHeaders, HTTPOnly: true,
		Text:    "response Content-Type <type> is neither application/json nor text/event-stream, which Streamable HTTP requires for a JSON-RPC body",
		Example: `response Content-Type "text/plain" is neither application/json nor text/event-stream, which Streamable HTTP requires for a JSON-RPC body`,
		Gate:    "a server frame whose Content-Type header the capture recorded", spec: transportPages("sending-messages")},

	// Extensions.
	{ID: "W48", Family: familyExtensions, Since: rev20260728,
		Text:    "<method> uses the io.modelcontextprotocol/tasks extension, which the <side> never advertised",
		Example: "tasks/get uses the io.modelcontextprotocol/tasks extension, which the server never advertised",
		Gate:    "a tasks/* request or notifications/tasks of a 2026-07-28 exchange", spec: at("2026-07-28", "basic/versioning#extension-negotiation")},
	{ID: "W49", Family: familyExtensions, Since: rev20260728,
		Text:    "tool \"<name>\" answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the <side> never advertised",
		Example: `tool "render" answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the client never advertised`,
		Gate:    "a task handle answering a tools/call that declared 2026-07-28 or later", spec: at("2026-07-28", "basic/versioning#extension-negotiation")},

	{ID: "W50", Family: familyHeaders, HTTPOnly: true,
		Text:    "a server on the loopback <answered> a request whose Host and Origin name another site, which it must refuse (403) against DNS rebinding",
		Example: "a server on the loopback answered with HTTP 200 a request whose Host and Origin name another site, which it must refuse (403) against DNS rebinding",
		Gate:    "the answer to a request whose recorded Host and Origin both name a site other than the loopback, when the HTTP proxy's recorded target is on the loopback",
		spec:    transportPages("security-warning")},
	{ID: "W51", Family: familyResources, Since: rev20260728,
		Text:    "resources/read of <uri>, which no listing offers, answered with empty contents; 2026-07-28 requires -32602",
		Example: `resources/read of "file:///missing.txt", which no listing offers, answered with empty contents; 2026-07-28 requires -32602`,
		Gate:    "a resources/read that declared 2026-07-28, in a session that listed its resources, of a URI no resources/list answer gave and no listed template matches",
		spec:    at(rev20260728, "server/resources#error-handling")},
	refuse("W52", "server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400)",
		"a request that broke W43 or W44", "basic/index#meta"),
	refuse("W53", "server answered with a result a request whose routing headers disagree with its body, which 2026-07-28 requires it to refuse (-32020, HTTP 400)",
		"a request that broke W36-W40 or W45", "basic/transports/streamable-http#server-validation"),
	refuse("W54", "server answered with a result a request naming protocol version <v>, which it does not support: 2026-07-28 requires -32022 and HTTP 400",
		"a request declaring a version the session's server/discover answer did not list, or no revision has", "basic/versioning"),
	{ID: "W55", Family: familyHeaders, HTTPOnly: true,
		Text:    "the event stream answering <subject> ended without an event, so the request can never be answered",
		Example: "the event stream answering tools/call slow (id 4) ended without an event, so the request can never be answered",
		Gate:    "an SSE response to a client's request that ended cleanly with no event (the HTTP proxy records stream_empty)",
		spec:    transportPages("sending-messages")},
	{ID: "W56", Family: familyHeaders, HTTPOnly: true, Since: "2025-06-18",
		Text:    "MCP-Protocol-Version header <h> is not the negotiated revision <negotiated>",
		Example: `MCP-Protocol-Version header "2025-03-26" is not the negotiated revision "2025-11-25"`,
		Gate:    "a client frame after initialize negotiated 2025-06-18 or later, unless its _meta declares 2026-07-28",
		spec: []specPage{
			{from: "2025-06-18", path: "basic/transports#protocol-version-header"},
			{from: rev20260728, path: "basic/transports/streamable-http#protocol-version-header"},
		}},
	{ID: "W57", Family: familyLifecycle,
		Text:    "initialize is missing required <fields>",
		Example: "initialize is missing required protocolVersion, clientInfo.name",
		Gate:    "a client's initialize request; with --wire too, the schema finding leaves out what W57 reports",
		spec:    at("", "basic/lifecycle#initialization")},
	{ID: "W58", Family: familyHeaders, HTTPOnly: true,
		Text:    "GET answered with <what>, neither an SSE stream nor 405",
		Example: "GET answered with HTTP 404, neither an SSE stream nor 405",
		Gate:    "the answer to a GET (the HTTP proxy records each exchange's method); 401 and 403 are exempt, and 404 once a DELETE ended the session",
		spec:    transportPages("listening-for-messages-from-the-server")},
	{ID: "W59", Family: familyJSONRPC,
		Text:    "request repeats the member name <name> in one object; servers take its last occurrence",
		Example: `request repeats the member name "name" in one object; servers take its last occurrence`,
		Gate:    "a client's request (any object in it, at any depth); every member mcpsnoop reads takes the last occurrence, as the servers' decoders do",
		spec:    []specPage{{from: "", path: "basic/messages#requests"}, {from: "2025-03-26", path: "basic/index#requests"}}},

	{ID: "W61", Family: familyExtensions,
		Text:    "<method> uses the io.modelcontextprotocol/events extension, which the server never advertised",
		Example: "events/poll uses the io.modelcontextprotocol/events extension, which the server never advertised",
		Gate:    "a client's events/* request in a session whose server/discover or initialize answer showed capabilities without the extension",
		spec:    at(rev20260728, "basic/versioning#extension-negotiation")},

	// HTTP failures (ours).
	{ID: "W60", Family: familyHeaders, HTTPOnly: true,
		Text:    "HTTP <status> answered a POST that carried only notifications or responses",
		Example: "HTTP 400 answered a POST that carried only notifications or responses",
		Gate:    "an HTTP failure without a JSON-RPC body answering a POST whose body held no request", spec: transportPages("sending-messages")},

	// The server's own verdict (check.md 3.4).
	{ID: "M1", Signal: SignalMismatch, Family: "Routing mismatch",
		Text:    "the server answered with error -32020 (HeaderMismatch): the client's routing header disagrees with the body, or, when the recorded headers agree, the server refused wrongly",
		Example: "the server answered -32020 (HeaderMismatch), yet the request's routing headers, as recorded, agree with its body",
		Gate:    "an error response with code -32020", spec: at("2026-07-28", "basic/transports/streamable-http#server-validation")},

	// Schema validation (opt in: --fail-on wire or --wire).
	{ID: RuleWire, Signal: SignalWire, Family: "Schema",
		Text:    "wire: <method> <request|notification|result|error response>: <pointer>: <problem> (<revision> <definition>)",
		Example: `wire: tools/list result: /tools/3: missing property "name" (2025-11-25 ListToolsResult)`,
		Gate:    "every JSON-RPC frame of a session whose revision its frames tell", spec: at("", "schema")},
}

const (
	familyJSONRPC       = "JSON-RPC shape"
	familyMRTR          = "Multi round-trip requests"
	familyResultType    = "Result types"
	familyTools         = "Tool definitions"
	familyCache         = "Cache hints"
	familySubscriptions = "Subscriptions and progress"
	familyHeaders       = "Headers and per-request metadata"
	familyExtensions    = "Extensions"
	familyLifecycle     = "Lifecycle"
	familyResources     = "Resources"
)

// at is one page for every revision from rev on ("" for all).
func at(rev, path string) []specPage {
	return []specPage{{from: rev, path: path}}
}

var progressPages = []specPage{
	{from: "", path: "basic/utilities/progress"},
	{from: rev20260728, path: "basic/patterns/progress"},
}

// transportPages: the Streamable HTTP section of the transports page until
// 2026-07-28 gave the transport a page of its own.
func transportPages(anchor string) []specPage {
	return []specPage{
		{from: "2025-03-26", path: "basic/transports#streamable-http"},
		{from: rev20260728, path: "basic/transports/streamable-http#" + anchor},
	}
}

// jsonrpc is a JSON-RPC shape rule; section is where the base protocol
// says it: messages, requests or responses. 2024-11-05 has those on a
// page of their own (basic/messages, whose introduction is the messages
// part); from 2025-03-26 on they are sections of the base protocol's
// overview.
func jsonrpc(id, text, example, section string) Rule {
	old := "basic/messages"
	if section != "messages" {
		old += "#" + section
	}
	return Rule{ID: id, Family: familyJSONRPC, Text: text, Example: example, Gate: "any JSON-RPC frame",
		spec: []specPage{{from: "", path: old}, {from: "2025-03-26", path: "basic/index#" + section}}}
}

func cache(id, text, example string) Rule {
	return Rule{ID: id, Family: familyCache, Since: rev20260728, Text: text, Example: example,
		Gate: "a complete answer to server/discover, a list method or resources/read whose request declared 2026-07-28 or later (not an MRTR retry)",
		spec: at("2026-07-28", "server/utilities/caching")}
}

func mrtrRetry(id, text string) Rule {
	return Rule{ID: id, Family: familyMRTR, Text: text, Example: text,
		Gate: "a retry linked to a parked input_required call by method, name and input keys",
		spec: at("2026-07-28", "basic/patterns/mrtr#client-requirements")}
}

func subscription(id, text, example string) Rule {
	return Rule{ID: id, Family: familySubscriptions, Text: text, Example: example,
		Gate: "a server's change notification after the client opened subscriptions/listen",
		spec: at("2026-07-28", "basic/patterns/subscriptions")}
}

// refuse is one of W52-W54: a 2026-07-28 server's result to a request it
// must refuse.
func refuse(id, text, broke, path string) Rule {
	example := strings.ReplaceAll(text, "<v>", `"2099-01-01"`)
	return Rule{ID: id, Family: familyHeaders, Since: rev20260728, Text: text, Example: example,
		Gate: "the result answering " + broke + " under 2026-07-28", spec: at(rev20260728, path)}
}

// header is a routing-header rule: a warning whose frame counts as a
// mismatch too.
func header(id, since, text, example, gate, path string) Rule {
	return Rule{ID: id, Family: familyHeaders, Mismatch: true, Since: since, HTTPOnly: true,
		Text: text, Example: example, Gate: gate, spec: at("2026-07-28", path)}
}

// ruleParties are the rules whose frames only one side sends; every other
// rule blames the frame's sender, whichever side that is.
var ruleParties = map[string]Party{
	"M1":  PartyServer,
	"W9":  PartyServer,
	"W10": PartyServer,
	"W11": PartyServer,
	"W12": PartyServer,
	"W13": PartyServer,
	"W14": PartyServer,
	"W15": PartyServer,
	"W16": PartyServer,
	"W17": PartyServer,
	"W18": PartyServer,
	"W19": PartyServer,
	"W20": PartyServer,
	"W21": PartyServer,
	"W22": PartyServer,
	"W23": PartyServer,
	"W26": PartyClient,
	"W27": PartyClient,
	"W28": PartyClient,
	"W30": PartyServer,
	"W31": PartyServer,
	"W32": PartyServer,
	"W35": PartyServer,
	"W36": PartyClient,
	"W37": PartyClient,
	"W38": PartyClient,
	"W39": PartyClient,
	"W40": PartyClient,
	"W41": PartyServer,
	"W42": PartyClient,
	"W43": PartyClient,
	"W44": PartyClient,
	"W45": PartyClient,
	"W55": PartyServer,
	"W56": PartyClient,
	"W57": PartyClient,
	"W59": PartyClient,
	"W61": PartyClient,
	"W46": PartyClient,
	"W47": PartyServer,
	"W50": PartyServer,
	"W51": PartyServer,
	"W52": PartyServer,
	"W53": PartyServer,
	"W54": PartyServer,
	"W49": PartyServer,
}

func init() {
	for i := range ruleCatalog {
		r := &ruleCatalog[i]
		if r.Signal == "" {
			r.Signal = SignalWarn
		}
		if r.Party = ruleParties[r.ID]; r.Party == "" {
			r.Party = PartySender
		}
	}
}
