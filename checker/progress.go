package checker

// W33-W34: progress notifications (check.md 3.3 D).

// progressState is what these rules remember about a session.
type progressState struct{}

func (s *session) progressRequest(fc *frameCtx, c *call) {}

func (s *session) progressDone(c *call) {}

func (s *session) progressRules(fc *frameCtx) {}
