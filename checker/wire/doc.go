// Package wire is the checker's view of schema validation: the message
// to validate, the finding it gives (with its text and spec links), and the
// protocol revisions that have a schema. The validating itself is package
// schemacheck's, which registers itself here when a program links it, so
// that a program that only captures (the stdio shim's own binary) carries
// neither the schemas nor the JSON schema library and its start-up cost.
package wire
