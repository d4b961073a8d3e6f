// Package security holds the rules of the opt-in security signal (S1, S2,
// ...): offline, deterministic cues in what servers told the model (tool,
// prompt and resource descriptions, input schema property descriptions,
// annotations, the server's instructions, and what tools, prompts and
// resources returned), credentials of well-known formats in traffic either
// way, and rug pulls (a definition that changes into something worse).
//
// It looks at patterns, not meaning: there is no model judging intent. Its
// cues are chosen for precision (no finding on well-known real servers'
// traffic) over recall; docs/reference/security.md says what it misses.
// The checker calls it per frame, as it calls package wire, and owns the
// session state; this package holds the catalogue and pure functions of
// a message or a definition.
package security
