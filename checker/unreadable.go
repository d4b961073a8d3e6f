package checker

// UnreadableLine records a line of an input that could not be read as a
// frame (capture.ErrUnreadableLine: not JSON, nested too deep, a field of
// the wrong type), which the reader skipped: one invalid frame of the
// session whose frame that input gave last (sessionID), at pos. The log is
// the capture's product, so it is the transport's finding, never a peer's.
// A session this check leaves out, or none, records nothing.
func (e *Engine) UnreadableLine(sessionID string, pos Position, err error) {
	s := e.sessions[sessionID]
	if s == nil {
		return
	}
	s.counters.Invalid++
	s.addFinding(findingInput{
		signal: SignalInvalid, phase: phaseFrames, ordinal: s.frames, rank: rankInvalid, party: PartyTransport,
		path: pos.Path, line: pos.Line, ownWords: true,
		kind: "a log line could not be read and was skipped",
		text: "session " + s.id + ": a log line could not be read and was skipped: " + err.Error(),
	})
}
