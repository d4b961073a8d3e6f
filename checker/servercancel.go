package checker

// W35: under 2026-07-28 a server may cancel only a subscriptions/listen request (check.md 3.3 D).

func (s *session) serverCancelRules(fc *frameCtx) {}
