package capture

// Quote applies the rules that reach free text to s, as Apply does to a
// frame's text line: key rules to every "key": value pair in it (the
// tolerant scan of scrubKeyValues), value patterns to every match. A report
// runs what it quotes through it: a server's error message, a tool
// definition's old and new values (a baseline holds them as recorded). A
// nil Redactor returns s.
func (r *Redactor) Quote(s string) string {
	if r == nil || s == "" {
		return s
	}
	if out, ok := r.scrubKeyValues(s); ok {
		s = out
	}
	if out, ok := r.scrubString(s); ok {
		s = out
	}
	return s
}
