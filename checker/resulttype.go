package checker

// W13-W14: results of 2026-07-28 requests carry a resultType (check.md 3.3 B).

func (s *session) resultTypeRules(fc *frameCtx, c *call) {}
