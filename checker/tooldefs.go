package checker

import "encoding/json"

// ToolDef is one tool as a tools/list result advertised it, in the form the
// tool baseline stores and drift compares (check.md section 4.2). The JSON
// values are canonical: object keys sorted, numbers as written, no spaces.
type ToolDef struct {
	Name        string
	Description string // "" when absent or not a string
	Title       string // "" when absent or not a string
	// InputSchema is "null" when the tool has none.
	InputSchema json.RawMessage
	// OutputSchema, Annotations and Icons are nil when the server sent none.
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
	Icons        json.RawMessage
}

// DriftKind names what changed about a tool, in report order.
type DriftKind string

const (
	DriftAdded        DriftKind = "added"
	DriftRemoved      DriftKind = "removed"
	DriftDescription  DriftKind = "description"
	DriftInputSchema  DriftKind = "input_schema"
	DriftTitle        DriftKind = "title"
	DriftOutputSchema DriftKind = "output_schema"
	DriftAnnotations  DriftKind = "annotations"
	DriftIcons        DriftKind = "icons"
)

// DriftKinds lists every kind in report order.
var DriftKinds = []DriftKind{
	DriftAdded, DriftRemoved, DriftDescription, DriftInputSchema,
	DriftTitle, DriftOutputSchema, DriftAnnotations, DriftIcons,
}

// Label is how reports name a kind: "added", "description changed", ...
func (k DriftKind) Label() string {
	switch k {
	case DriftAdded, DriftRemoved:
		return string(k)
	case DriftInputSchema:
		return "input schema changed"
	case DriftOutputSchema:
		return "output schema changed"
	}
	return string(k) + " changed"
}

// DriftEntry is one (kind, tool) difference between the baseline and a
// session.
type DriftEntry struct {
	Kind DriftKind `json:"kind"`
	Tool string    `json:"tool"`
}

// BaselineStore keeps the trusted tool definitions per server label. The
// engine hands it each session's complete tool listing, in session order;
// implementations do the I/O (see package baseline), the engine stays pure.
type BaselineStore interface {
	// Observe returns the label's baseline, first recording defs as the
	// baseline when there is none yet (trust on first use). An error (an
	// unreadable or corrupt baseline, a write failure) is reported as the
	// session's baseline error.
	Observe(label string, defs []ToolDef) (BaselineObservation, error)
	// Location is where baselines are kept, for messages that tell users
	// what to persist between CI runs.
	Location() string
}

// BaselineObservation is what the store answered for one session.
type BaselineObservation struct {
	// Created is true when defs were recorded just now: nothing was
	// verified.
	Created bool
	// Version of the stored baseline: 1 files record only name,
	// description and input schema; 2 record every compared field.
	Version int
	// Tools are the baseline's definitions (when not Created).
	Tools []ToolDef
}
