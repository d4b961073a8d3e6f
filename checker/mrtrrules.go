package checker

// W9-W12: the shape of an input_required result (check.md 3.3 B).

func (s *session) inputRequiredRules(fc *frameCtx, c *call) {}
