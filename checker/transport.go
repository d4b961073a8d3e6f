package checker

// The streamable-HTTP Accept and Content-Type rules (seed README, "Check the transport headers the spec makes mandatory").

func (s *session) transportRules(fc *frameCtx) {}
