package checker

// W17-W23: cache hints on cacheable results (check.md 3.3 B).

// cacheState is what these rules remember about a session.
type cacheState struct{}

func (s *session) cacheRules(fc *frameCtx, c *call) {}
