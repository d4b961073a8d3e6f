package checker

// The Tasks extension used on 2026-07-28 without the other side advertising it (seed README, "Catch a feature neither side negotiated").

// extensionState is what these rules remember about a session.
type extensionState struct{}

func (s *session) extensionRules(fc *frameCtx) {}
