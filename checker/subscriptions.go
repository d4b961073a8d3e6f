package checker

// W30-W32: notifications on a subscriptions/listen stream (check.md 3.3 D).

// subscriptionState is what these rules remember about a session.
type subscriptionState struct{}

func (s *session) subscriptionRequest(fc *frameCtx, c *call) {}

func (s *session) subscriptionRules(fc *frameCtx) {}
