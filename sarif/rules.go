package sarif

import (
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/security"
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

// rule is one SARIF rule: its id and name are interface (check.md 8.1), its
// three texts are ours. Code scanning shows short as the alert's title, full
// under it, and help in the "show more" panel, so help says what to do.
type rule struct {
	id, name          string
	short, full, help string
	// helpURI is where code scanning's "learn more" goes: the spec section
	// the rule enforces, or the README's rule catalogue for warn, whose
	// results name their own sections (see addResultRules).
	helpURI string
	// optional rules are declared only in logs that can hold their
	// results: the wire rule, when schema validation ran; the security
	// rules (secure), when they ran.
	optional, secure bool
	// severity and tags are the properties code scanning ranks and
	// groups security alerts by (security-severity, tags).
	severity string
	tags     []string
}

// declared says which optional rules a log declares.
type declared struct{ wire, security bool }

// declares reports whether a log of d declares r.
func (d declared) declares(r rule) bool {
	switch {
	case r.optional:
		return d.wire
	case r.secure:
		return d.security
	}
	return true
}

// rules are declared in this order in every log; a rule's ruleIndex is its
// position here among the rules the log declares.
var rules = append(baseRules, securityRules()...)

// securityRules are the security catalogue's rules, mcpsnoop/security/S1
// and on, each with its severity score and tags (security, its CWE) so
// that code scanning ranks the alerts.
func securityRules() []rule {
	out := make([]rule, len(security.Rules))
	for i, r := range security.Rules {
		tags := []string{"security"}
		if r.CWE != "" {
			tags = append(tags, "external/cwe/"+strings.ToLower(r.CWE))
		}
		out[i] = rule{
			id: security.RulePrefix + r.ID, name: r.Name, secure: true,
			helpURI:  SecurityCatalogURI + "#" + strings.ToLower(r.ID),
			short:    r.ID + ": " + strings.ToUpper(r.Title[:1]) + r.Title[1:],
			full:     "Looks at " + r.Looks + ". Severity " + r.Severity + ".",
			help:     r.Help + " Runs only with --fail-on security or --security.",
			severity: r.Score, tags: tags,
		}
	}
	return out
}

// SecurityCatalogURI is the reference page of the security rules.
const SecurityCatalogURI = InformationURI + "/blob/main/docs/reference/security.md"

var baseRules = []rule{
	{
		id: checker.SignalError.RuleID(), name: "CallError", helpURI: checker.SpecBase + "2026-07-28/basic/index#error-responses",
		short: "A call ended in an error",
		full:  "A request in the capture ended in a JSON-RPC error response, a tools/call result marked isError, or a failed task; an HTTP transport failure and an error response that answers no known request are reported here too.",
		help:  "The server could not do what the client asked. Open the log at the reported line to read the error code and message, then fix the server's handler or the arguments the client sent. If the failure is expected in this scenario, leave error out of --fail-on.",
	},
	{
		id: checker.SignalInvalid.RuleID(), name: "InvalidFrame", helpURI: checker.SpecBase + "2026-07-28/basic/transports/stdio",
		short: "Something on the protocol channel is not JSON-RPC",
		full:  "A line on the protocol channel is not a JSON-RPC 2.0 message. With the stdio transport this is nearly always the server, or a library it loads, printing logs or debug text to stdout, which corrupts the stream the client parses.",
		help:  "A stdio MCP server must write only protocol messages to stdout. Send every log and debug line to stderr instead. The reported line shows the stray text; search the server and its dependencies for the print or logger that wrote it.",
	},
	{
		id: checker.SignalWarn.RuleID(), name: "ProtocolWarning", helpURI: RuleCatalogURI,
		short: "A frame breaks an MCP or JSON-RPC rule",
		full:  "A message breaks an expectation of the MCP specification or of JSON-RPC 2.0, for example a duplicate response, a missing or unknown result type, progress that goes backwards, a broken multi round-trip retry, or an invalid header. The message names the rule. This signal is in the default gate.",
		help:  "Read the message: it names the rule the frame broke and the direction tells which side sent it. Fix that side so that clients and servers from other vendors work with it. To stop failing the check on these, remove warn from --fail-on.",
	},
	{
		id: checker.SignalMismatch.RuleID(), name: "RoutingMismatch", helpURI: checker.SpecBase + "2026-07-28/basic/transports/streamable-http#request-metadata",
		short: "A routing or protocol header disagrees with the body",
		full:  "Over HTTP, a routing header (Mcp-Method, Mcp-Name, a parameter header) or the protocol-version header disagrees with the JSON-RPC body, is missing where it is required, accompanies a batch, or the server rejected a request with error -32020 because of such a disagreement.",
		help:  "Gateways and load balancers route MCP traffic on these headers, so a mismatch can send a call to the wrong place or get it rejected. Make the client derive every MCP header from the same values it puts in the body, on every request. Gate on it with --fail-on mismatch.",
	},
	{
		id: checker.SignalPending.RuleID(), name: "PendingCall", helpURI: checker.SpecBase + "2026-07-28/basic/index#responses",
		short: "A request never got a response",
		full:  "A request was sent but no response to it had arrived when the capture ended. The server may have hung, crashed or dropped the request, or the capture stopped too early.",
		help:  "Check that the server answers this method on every path, including errors and timeouts, and that the client waits for the answer before it exits. If the capture was cut short on purpose, ignore this result. It fails the check only with --fail-on pending.",
	},
	{
		id: checker.SignalLateResult.RuleID(), name: "LateResult", helpURI: checker.SpecBase + "2026-07-28/basic/patterns/cancellation",
		short: "A result arrived after its call was cancelled",
		full:  "The client cancelled a request with notifications/cancelled, and the server still sent a result for it afterwards. The message says how long after the cancellation it arrived.",
		help:  "A server should stop working on a cancelled request and not answer it. Pass cancellation into the tool handler (for example through a context) so that long work ends promptly. Not in the default gate; select it with --fail-on late-result.",
	},
	{
		id: checker.SignalDrift.RuleID(), name: "ToolDefinitionDrift",
		short: "A tool definition changed from its baseline",
		full:  "The tools a server advertised in tools/list differ from the first-seen baseline recorded for that server: a tool was added or removed, or its description, schema, annotations or title changed. Also reported when a baseline is first recorded and when the baseline could not be read.",
		help:  "A changed tool definition changes what a model is told about the tool, so review every change. If it is intended, accept it into the baseline with mcpsnoop baseline --accept; if not, find what altered the server's tool list. Select with --fail-on drift.",
	},
	{
		id: checker.SignalDeprecated.RuleID(), name: "DeprecatedFeature", helpURI: checker.SpecBase + "2026-07-28/deprecated",
		short: "A deprecated protocol feature is used",
		full:  "A frame uses a feature that the current MCP specification marks as deprecated. It still works today but may be removed in a later revision of the protocol.",
		help:  "The message names the feature and what replaces it. Move to the replacement before clients drop support for the old feature. Select with --fail-on deprecated.",
	},
	{
		id: checker.SignalIncomplete.RuleID(), name: "IncompleteCapture",
		short: "Frames are missing from the capture",
		full:  "The session log has gaps in its frame sequence numbers, or its last line was cut off. The recorder drops log lines rather than delay traffic when its disk or queue cannot keep up, so other results for this session may be incomplete.",
		help:  "Check free disk space and the load on the machine that recorded the session, then capture again. A log with missing frames can hide calls or make an answered call look pending. Select with --fail-on incomplete.",
	},
	{
		id: checker.SignalSchema.RuleID(), name: "SchemaFinding", helpURI: checker.SpecBase + "2026-07-28/basic/index#json-schema-usage",
		short: "A tool schema uses a construct clients read differently",
		full:  "A tool's input or output schema uses a JSON Schema construct (such as anyOf, oneOf, allOf or not) that MCP clients and model providers interpret inconsistently or reject.",
		help:  "Prefer a plain object schema with explicit properties and required fields. Where callers need alternatives, consider an enum field or separate tools. Select with --fail-on schema.",
	},
	{
		id: checker.RuleAssertion, name: "AssertionFailure",
		short: "An assertion about the session failed",
		full:  "An assertion given on the command line did not hold for this session: a tool call went over its time or round-trip budget, a tool named by --expect-tool was never called, or a tool named by --forbid-tool was called.",
		help:  "The message names the tool and, for a budget, the worst call seen. Fix the behaviour, or change the assertion if the expectation was wrong. A failed assertion always fails the check, whatever --fail-on says.",
	},
	{
		id: RuleReportTruncated, name: "ReportTruncated",
		short: "The report was cut to fit a code-scanning upload",
		full:  "The check found more results than code scanning accepts in one run, so this report keeps the most severe ones (errors first, each level in report order) and leaves the rest out. The message gives both counts.",
		help:  "Run mcpsnoop check with the text or junit format to see every finding. Fix the most frequent ones first: the count usually falls quickly once a repeated fault is fixed.",
	},
	{
		id: checker.SignalWire.RuleID(), name: "SchemaViolation", optional: true, helpURI: checker.SpecBase + "2026-07-28/schema",
		short: "A message does not match the specification's JSON schema",
		full:  "A JSON-RPC message does not validate against the official MCP JSON schema of the protocol revision its session negotiated: the definition of its method for a request or notification, of the request it answers for a result, the error response for an error. The message gives the JSON pointer of each failing value, what is wrong with it, and the revision and definition.",
		help:  "Open the log at the reported line and look at the value the pointer names; the definition named at the end of the message says what the specification expects there (its section of the schema reference is linked from this rule). Fix the side that sent the message. Validation runs only with --fail-on wire or --wire.",
	},
}

// RuleCatalogURI is the README's table of every warn and mismatch rule,
// with the spec section each enforces per revision.
const RuleCatalogURI = InformationURI + "#the-rule-catalogue"

// addRules registers every rule, in order, with all three texts and its
// help link; an optional rule only when d declares it.
func addRules(run *gosarif.Run, d declared) {
	for _, r := range rules {
		if !d.declares(r) {
			continue
		}
		rd := run.AddRule(r.id).
			WithName(r.name).
			WithDescription(r.short).
			WithFullDescription(gosarif.NewMultiformatMessageString(r.full)).
			WithTextHelp(r.help)
		if r.helpURI != "" {
			rd.WithHelpURI(r.helpURI)
		}
		if r.severity != "" {
			pb := gosarif.NewPropertyBag()
			pb.Add("security-severity", r.severity)
			pb.Add("tags", r.tags)
			rd.AttachPropertyBag(pb)
		}
	}
}

// ruleIndex is the position of rule id among the rules declared in a log
// of d, or -1 when it is not declared.
func ruleIndex(id string, d declared) int {
	i := 0
	for _, r := range rules {
		if !d.declares(r) {
			continue
		}
		if r.id == id {
			return i
		}
		i++
	}
	return -1
}

// Result properties naming the catalogue rules a warn, mismatch or wire
// result reports and the spec section each enforces for the frame's
// revision (code scanning keeps one helpUri per rule, and one warn result
// may break several rules).
const (
	RulesProperty    = "mcpsnoop/rules"
	SpecURIsProperty = "mcpsnoop/specUris"
)

// addResultRules adds a finding's rules and spec links to its result.
func addResultRules(res *gosarif.Result, f *checker.Finding) {
	if len(f.Rules) == 0 {
		return
	}
	ids := make([]string, len(f.Rules))
	uris := make([]string, len(f.Rules))
	for i, r := range f.Rules {
		ids[i], uris[i] = r.ID, r.SpecURL
	}
	if res.PropertyBag.Properties == nil {
		res.PropertyBag = *gosarif.NewPropertyBag()
	}
	res.Add(RulesProperty, ids)
	res.Add(SpecURIsProperty, uris)
}
