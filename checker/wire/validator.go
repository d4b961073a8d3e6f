package wire

import "errors"

// A Validator checks one message against its revision's schema: nil when
// it conforms, a Finding when it does not, ErrUnknownRevision for a
// revision without a schema, ErrStopped for a message larger than
// validation takes.
type Validator func(Message) (*Finding, error)

// validator is the one Register installed. The schemas and the JSON
// schema library live in package schemacheck, which registers itself when
// a program links it: the stdio shim's own binary does not, so that none
// of their start-up cost reaches a client starting a server.
var validator Validator

// ErrNoValidator is returned by Validate in a program that does not link
// package schemacheck.
var ErrNoValidator = errors.New("no schema validator linked into this program (import github.com/mcpsnoop/mcpsnoop/checker/wire/schemacheck)")

// Register makes v the validator Validate uses. It is meant for package
// schemacheck's init; a second registration panics, since two validators
// would make verdicts depend on link order.
func Register(v Validator) {
	if validator != nil {
		panic("wire: a schema validator is already registered")
	}
	validator = v
}

// Linked reports whether the program has a validator registered.
func Linked() bool { return validator != nil }

// Validate checks m with the registered validator; see Validator.
func Validate(m Message) (*Finding, error) {
	if validator == nil {
		return nil, ErrNoValidator
	}
	return validator(m)
}
