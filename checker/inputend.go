package checker

// EndInput lets go of what reading an input holds besides the sessions'
// own state: frames queued for schema validation are validated and their
// copies freed (a batch holding a copy of a 255 MiB frame otherwise stayed
// until the report, however many inputs were read after it). Reading logs
// in parallel (package ingest) calls it after each input, before it gives
// back the memory the input took. The report is the same either way:
// outcomes are applied in frame order whenever they come.
func (e *Engine) EndInput() {
	if e.pool != nil {
		e.pool.flush()
	}
}
