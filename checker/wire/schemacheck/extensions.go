package schemacheck

// Messages an extension defines: the core schema types only their envelope
// (a method of no union), so the extension's own schema, embedded from
// extschemas/, is checked beside it. Today that is the Events extension
// (io.modelcontextprotocol/events, SEP-3415), whose schema is mcpsnoop's
// reading of its published text: testdata/events/README.md names the
// sources.

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed extschemas/events.json
var eventsSchema []byte

const eventsSchemaURL = "mcpsnoop:extschemas/events.json"

var (
	eventsRequests = map[string]string{
		"events/list": "ListRequest", "events/poll": "PollRequest", "events/stream": "StreamRequest",
		"events/subscribe": "SubscribeRequest", "events/unsubscribe": "UnsubscribeRequest",
	}
	eventsResults = map[string]string{
		"events/list": "ListResult", "events/poll": "PollResult", "events/stream": "StreamResult",
	}
	eventsNotifications = map[string]string{
		"notifications/events/active": "ActiveNotification", "notifications/events/heartbeat": "HeartbeatNotification",
		"notifications/events/event": "StreamNotification", "notifications/events/error": "StreamNotification",
		"notifications/events/terminated": "StreamNotification",
	}
)

// extDefinition is the Events definition a message is held to, "" for a
// message the extension does not define.
func extDefinition(m *wire.Message) string {
	switch m.Kind {
	case wire.Request:
		if m.Sender == wire.Client {
			return eventsRequests[m.Method]
		}
	case wire.Result:
		if m.Sender == wire.Server {
			return eventsResults[m.Method]
		}
	case wire.Notification:
		if m.Sender == wire.Server {
			return eventsNotifications[m.Method]
		}
	}
	return ""
}

var extSchemas = struct {
	sync.Mutex
	c        *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}{}

// extSchema compiles an Events definition, once.
func extSchema(def string) (*jsonschema.Schema, error) {
	extSchemas.Lock()
	defer extSchemas.Unlock()
	if s := extSchemas.compiled[def]; s != nil {
		return s, nil
	}
	if extSchemas.c == nil {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(eventsSchema))
		if err != nil {
			return nil, fmt.Errorf("events schema: %w", err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(eventsSchemaURL, doc); err != nil {
			return nil, fmt.Errorf("events schema: %w", err)
		}
		extSchemas.c, extSchemas.compiled = c, map[string]*jsonschema.Schema{}
	}
	s, err := extSchemas.c.Compile(eventsSchemaURL + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("events schema: compiling %s: %w", def, err)
	}
	extSchemas.compiled[def] = s
	return s, nil
}

// extensionCheck holds a message an extension defines to its definition.
func (v *validation) extensionCheck() error {
	def := extDefinition(v.m)
	if def == "" {
		return nil
	}
	s, err := extSchema(def)
	if err != nil {
		return err
	}
	inst, base := v.msg, ""
	if v.m.Kind == wire.Result {
		obj, _ := v.msg.(map[string]any)
		inst, base = obj["result"], "/result"
	}
	return v.record(s.Validate(inst), base, inst, wire.EventsDefinitionPrefix+def)
}
