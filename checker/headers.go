package checker

// W36-W44 and the -32020 mismatch: routing headers, the direction of a stateless session and per-request _meta (check.md 3.3 E, 3.4).

// headerState is what these rules remember about a session.
type headerState struct{}

func (s *session) headerRules(fc *frameCtx) {}
