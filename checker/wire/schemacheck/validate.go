package schemacheck

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// redactedValue is what the capture's redaction writes in place of a value.
const redactedValue = "[REDACTED]"

func init() { wire.Register(Validate) }

// Validate checks m against its revision's schema. It returns nil when the
// message conforms, wire.ErrUnknownRevision when the revision has no
// schema, and any other error only when an embedded schema cannot be
// compiled (a defect of this package).
func Validate(m wire.Message) (*wire.Finding, error) {
	r := revisions[m.Revision]
	if r == nil {
		return nil, wire.ErrUnknownRevision
	}
	if err := r.load(); err != nil {
		return nil, err
	}
	var key []byte
	if !m.Redacted {
		buf := shapeBuffers.Get().(*[]byte)
		defer shapeBuffers.Put(buf)
		if k, ok := r.shape(&m, *buf); ok {
			*buf = k[:0]
			if r.shapes.has(k) {
				return nil, nil // a shape that validated before
			}
			key = k
		}
	}
	v := validation{r: r, m: &m}
	f, err := v.run()
	if f == nil && err == nil && key != nil {
		r.shapes.add(key)
	}
	return f, err
}

// shapeBuffers holds buffers for shape keys.
var shapeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// validation is one message being checked.
type validation struct {
	r      *revision
	m      *wire.Message
	msg    any
	noun   string // request, notification, result, error response
	issues []wire.Issue
	cut    []string // pointers of containers the decoder left members of out
}

func (v *validation) run() (*wire.Finding, error) {
	m, r := v.m, v.r
	paramsSkip, resultSkip := "", "structuredContent"
	if m.Kind == wire.Request && m.Method == "tools/call" {
		paramsSkip = "arguments"
	}
	d := decoder{b: m.Raw}
	v.msg = d.message(paramsSkip, resultSkip)
	v.cut = d.cut

	var err error
	switch m.Kind {
	case wire.Request, wire.Notification:
		err = v.methodMessage()
	case wire.Result:
		err = v.result()
	case wire.Error:
		v.noun = "error response"
		err = v.check(r.envError, "", v.msg)
	}
	if err == nil {
		err = v.extensionCheck()
	}
	if err != nil {
		return nil, err
	}
	stopped := v.limit()
	if len(v.issues) == 0 {
		if stopped != "" {
			return nil, fmt.Errorf("%w %s", wire.ErrStopped, stopped)
		}
		return nil, nil
	}
	f := &wire.Finding{Revision: m.Revision, Subject: subject(m.Method, v.noun), Definition: v.issues[0].Definition, Stopped: stopped}
	if len(v.issues) > wire.MaxIssues {
		f.Omitted = len(v.issues) - wire.MaxIssues
		v.issues = v.issues[:wire.MaxIssues]
	}
	f.Issues = v.issues
	return f, nil
}

// limit applies validation's limits to the issues found, and says why
// validation stopped ("" when it did not). Issues located at a container
// whose members were left out (past maxValues) are left out too: they may
// be what leaving members out made (a required property never decoded, a
// union no branch of which fits what is left). Past MaxCollected issues,
// the rest go.
func (v *validation) limit() string {
	stopped := ""
	if len(v.cut) > 0 {
		cut := map[string]bool{}
		for _, p := range v.cut {
			cut[p] = true
		}
		kept := v.issues[:0]
		for _, is := range v.issues {
			if !cut[is.Pointer] {
				kept = append(kept, is)
			}
		}
		v.issues = kept
		at := v.cut[0]
		if at == "" {
			at = "the message's top level"
		}
		stopped = "after " + strconv.Itoa(maxValues) + " values, at " + at + ": the rest of the message was not validated"
	}
	if len(v.issues) > wire.MaxCollected {
		v.issues = v.issues[:wire.MaxCollected]
		if stopped == "" {
			stopped = "after " + strconv.Itoa(wire.MaxCollected) + " issues"
		}
	}
	return stopped
}

// methodMessage checks a request or a notification against the definition
// of its method for its sender, and its envelope.
func (v *validation) methodMessage() error {
	m, r := v.m, v.r
	env, noun := r.envRequest, "request"
	own, other := r.clientRequests, r.serverRequests
	if m.Kind == wire.Notification {
		env, noun = r.envNotification, "notification"
		own, other = r.clientNotifications, r.serverNotifications
	}
	if m.Sender == wire.Server {
		own, other = other, own
	}
	v.noun = noun
	def := own[m.Method]
	if def == "" {
		if other[m.Method] != "" || !r.has(v.senderUnion()) {
			v.wrongSender(noun)
		}
		// A method of no union (an extension's, a vendor's): the envelope
		// is all the schema says about it.
		return v.check(env, "", v.msg)
	}
	if !r.includesEnvelope(def) {
		// The method's definition checks params; the envelope's own
		// (any object) is checked on an empty stand-in.
		obj, _ := v.msg.(map[string]any)
		params, isObj := obj["params"].(map[string]any)
		if isObj && len(params) > 0 {
			stand := map[string]any{}
			if meta, ok := params["_meta"]; ok {
				stand["_meta"] = meta // the envelope types params._meta
			}
			obj["params"] = stand
		}
		err := v.check(env, "", v.msg)
		if isObj {
			obj["params"] = params
		}
		if err != nil {
			return err
		}
	}
	return v.check(def, "", v.msg)
}

// wrongSender records a known method sent by the side that may not send
// it.
func (v *validation) wrongSender(noun string) {
	m := v.m
	union, side := v.senderUnion(), "client"
	if m.Sender == wire.Server {
		side = "server"
	}
	msg := "a " + side + " may not send " + m.Method + " as a " + noun + " in " + m.Revision
	if !v.r.has(union) {
		msg = m.Revision + " defines no " + noun + " a " + side + " sends"
		union = "JSONRPCMessage"
	}
	v.issues = append(v.issues, wire.Issue{Pointer: "/method", Relative: "/method", Keyword: "anyOf", Message: msg, Definition: union})
}

// senderUnion names the union of the messages of the message's kind its
// sender may send: ClientRequest, ServerNotification and so on.
func (v *validation) senderUnion() string {
	side, noun := "Client", "Request"
	if v.m.Sender == wire.Server {
		side = "Server"
	}
	if v.m.Kind == wire.Notification {
		noun = "Notification"
	}
	return side + noun
}

// result checks a result response: the result against the definition of
// the request it answers, the rest against the envelope.
func (v *validation) result() error {
	r := v.r
	v.noun = "result"
	obj, _ := v.msg.(map[string]any)
	res, hasResult := obj["result"]
	def := v.resultDefinition(res)
	if def == "" || !hasResult {
		return v.check(r.envResult, "", v.msg)
	}
	// The envelope's generic Result says less than def about the result:
	// the envelope is checked with the result left out (an empty object
	// stands in for it), and what it says about that stand-in dropped.
	obj["result"] = map[string]any{}
	err := v.check(r.envResult, "", obj)
	obj["result"] = res
	if err != nil {
		return err
	}
	kept := v.issues[:0]
	for _, is := range v.issues {
		if is.Pointer != "/result" && !strings.HasPrefix(is.Pointer, "/result/") {
			kept = append(kept, is)
		}
	}
	v.issues = kept
	return v.check(def, "/result", res)
}

// resultDefinition names the definition a result is held to: the one of
// the request it answers, an InputRequiredResult where the method allows
// one (2026-07-28), a CreateTaskResult for a task-augmented request
// (2025-11-25); the generic Result for a result type an extension defines
// or an unknown request. "" means the envelope says it all.
func (v *validation) resultDefinition(res any) string {
	m, r := v.m, v.r
	obj, isObj := res.(map[string]any)
	if !isObj {
		return ""
	}
	rt, hasRT := obj["resultType"].(string)
	switch {
	case hasRT && rt == "input_required" && r.has("InputRequiredResult") && r.inputRequired[m.Method]:
		return "InputRequiredResult"
	case hasRT && rt != "complete" && rt != "input_required" && r.has("InputRequiredResult"):
		return "Result" // an extension's result type (the Tasks extension's "task")
	case m.TaskAugmented && r.has("CreateTaskResult"):
		return "CreateTaskResult"
	}
	reqs := r.clientRequests
	if m.Sender == wire.Client { // a client's result answers a server's request
		reqs = r.serverRequests
	}
	if def := reqs[m.Method]; def != "" {
		return r.resultOf[def]
	}
	return ""
}

// check validates inst (found at pointer base of the message) against def
// and records its issues.
func (v *validation) check(def, base string, inst any) error {
	s, err := v.r.schema(def)
	if err != nil {
		return err
	}
	return v.record(s.Validate(inst), base, inst, def)
}

// record keeps the issues of a validation of inst against def.
func (v *validation) record(verr error, base string, inst any, def string) error {
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return verr
	}
	for _, is := range flatten(ve) {
		if v.m.Redacted && redactedUnder(inst, is.tokens) {
			continue
		}
		rel := pointer(is.tokens)
		v.issues = append(v.issues, wire.Issue{
			Pointer: base + rel, Relative: rel, Keyword: is.keyword, Message: is.message, Definition: def,
		})
	}
	return nil
}

// subject names a message by its method and noun; by its noun alone when
// the method is not known.
func subject(method, noun string) string {
	if method == "" {
		return noun
	}
	return method + " " + noun
}

// redactedUnder reports whether the value at tokens, or one on the way to
// it, is the redaction placeholder.
func redactedUnder(v any, tokens []string) bool {
	for _, t := range tokens {
		if s, ok := v.(string); ok && s == redactedValue {
			return true
		}
		switch c := v.(type) {
		case map[string]any:
			v = c[t]
		case []any:
			i, ok := index(t)
			if !ok || i >= len(c) {
				return false
			}
			v = c[i]
		default:
			return false
		}
	}
	s, ok := v.(string)
	return ok && s == redactedValue
}
