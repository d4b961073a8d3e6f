package checker

// SessionSoFar is what a session has shown up to the frame the engine is
// judging: for consumers that follow a capture while it is written (live
// OTLP streaming) and cannot wait for Report, which closes the session.
type SessionSoFar struct {
	ID        string
	Label     string
	Transport string
	// Counters are the counts so far; the ones Report settles at the end
	// (Pending, Drift, SchemaFindings) are not set.
	Counters Counters
	// Capabilities are filled under Config.KeepBodies.
	Capabilities Capabilities
	// TraceIDs are the full trace ids the client's requests carried so far,
	// in the order first seen (at most 256, as for runs).
	TraceIDs []string
	// ProcessRunID is the client-process run the meta frame names ("" when
	// it names none): the run of a session that carried no trace id.
	ProcessRunID string
}

// SoFar returns what session id has shown so far, or false when the engine
// has not seen it. Call it from Config.OnCall or OnFrame, or between two
// Ingest calls; the slices it returns are copies.
func (e *Engine) SoFar(id string) (SessionSoFar, bool) {
	s := e.sessions[id]
	if s == nil {
		return SessionSoFar{}, false
	}
	out := SessionSoFar{
		ID: s.id, Label: s.label, Transport: s.transport, Counters: s.counters,
		TraceIDs: append([]string(nil), s.runs.traceOrder...),
	}
	if s.e.cfg.KeepBodies {
		out.Capabilities = s.caps
	}
	if s.runs.process {
		out.ProcessRunID = processRunID(s.runs.ppid, s.runs.ppidStart)
	}
	return out, true
}

// Open is how many calls of the sessions seen so far are still in play:
// waiting for their answer, parked for an MRTR retry, or holding a task
// that has not settled. A consumer following a log may drop an engine
// with none open and go on with a new one without losing a call's end
// (a cancelled call a late answer could still settle is not counted).
func (e *Engine) Open() int {
	n := 0
	for _, s := range e.order {
		n += len(s.calls.pending) + len(s.parked) + len(s.tasks)
	}
	return n
}
