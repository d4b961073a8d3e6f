package wire

import (
	"errors"
	"slices"
)

// Kind is what a message is.
type Kind uint8

const (
	Request Kind = iota
	Notification
	Result // a response carrying result, or one carrying neither result nor error
	Error  // a response carrying error
)

// Sender is the side that sent a message.
type Sender uint8

const (
	Client Sender = iota
	Server
)

// Message is one JSON-RPC message to validate.
type Message struct {
	// Revision is the protocol revision the message is judged under.
	Revision string
	Kind     Kind
	Sender   Sender
	// Method is a request's or notification's method; for a response, the
	// method of the request it answers ("" when that is not known).
	Method string
	// TaskAugmented marks the answer to a request that asked to run as a
	// task (params.task, 2025-11-25): its result is a CreateTaskResult.
	TaskAugmented bool
	// Redacted says the capture's redaction rewrote the message: a value
	// it replaced with "[REDACTED]" is not judged.
	Redacted bool
	// Raw is the message, one JSON object.
	Raw []byte
}

// Finding says how a message breaks its revision's schema.
type Finding struct {
	Revision string `json:"revision"`
	// Subject names the message: "tools/list result", "tools/call
	// request", "notifications/progress notification", "error response".
	Subject string `json:"subject"`
	// Definition is the schema definition the first issue breaks.
	Definition string `json:"definition"`
	// Issues are the first MaxIssues problems, in instance order.
	Issues []Issue `json:"issues"`
	// Omitted counts the problems past those, of the MaxCollected at most
	// that validation collects.
	Omitted int `json:"omitted"`
	// Stopped says why validation stopped before the end of the message,
	// when it did: MaxCollected issues found, or the message past
	// maxValues values ("" when it went through).
	Stopped string `json:"stopped,omitempty"`
}

// Issue is one failing instance location.
type Issue struct {
	// Pointer is the JSON pointer of the failing value within the message
	// ("" is the message itself).
	Pointer string `json:"pointer"`
	// Relative is the pointer within the value Definition describes: the
	// result object for a result definition, the message otherwise.
	Relative string `json:"-"`
	// Keyword is the schema keyword that failed (required, type, const,
	// anyOf, ...).
	Keyword string `json:"keyword"`
	// Message says what is wrong, in words.
	Message string `json:"message"`
	// Definition is the definition whose schema failed.
	Definition string `json:"definition"`
}

// MaxIssues is how many problems one finding lists.
const MaxIssues = 3

// MaxCollected is how many problems validation collects in one message
// before it stops: enough to count a few faults, and no list a message
// that breaks its schema everywhere can make long.
const MaxCollected = 100

// ErrStopped is returned for a message whose validation stopped before its
// end (it is larger than validation takes) without finding a problem in
// what it covered: it is neither valid nor faulty as far as is known.
var ErrStopped = errors.New("validation stopped")

// ErrUnknownRevision is returned for a revision without a schema.
var ErrUnknownRevision = errors.New("no schema for this protocol revision")

// Revisions are the protocol revisions with a schema, oldest first.
var Revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Known reports whether rev is a revision this package has a schema for.
func Known(rev string) bool {
	return slices.Contains(Revisions, rev)
}
