package diff

import (
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// Collector gathers the tool calls the checker engine hands to
// checker.Config.OnCall, per session, keeping only what diff compares.
type Collector struct {
	calls map[string][]Call
}

// OnCall records one ended call; it is meant as checker.Config.OnCall.
// Only tools/call calls that name a tool are kept.
func (c *Collector) OnCall(r checker.CallRecord) {
	call, ok := CallFromRecord(r)
	if !ok {
		return
	}
	if c.calls == nil {
		c.calls = map[string][]Call{}
	}
	c.calls[r.SessionID] = append(c.calls[r.SessionID], call)
}

// Side returns session s with the calls collected for it.
func (c *Collector) Side(s *checker.SessionReport) Side {
	return Side{SessionID: s.ID, Tools: s.Listing.Tools, Calls: c.calls[s.ID]}
}

// CallFromRecord reduces a checker call to what diff compares. It reports
// false for anything but a tools/call with a tool name.
func CallFromRecord(r checker.CallRecord) (Call, bool) {
	if r.Method != "tools/call" || r.Name == "" {
		return Call{}, false
	}
	return Call{
		Index: r.Index, Tool: r.Name, Args: canonicalArgs(r.Arguments),
		Status: r.Status, Duration: r.Duration, HasDuration: r.HasDuration,
	}, true
}

// canonicalArgs spells arguments the same way whatever their key order or
// spacing in the log; absent arguments are the empty object.
func canonicalArgs(raw []byte) string {
	if len(raw) == 0 {
		return "{}"
	}
	canon, err := tooldef.CanonicalJSON(raw)
	if err != nil {
		// The engine hands over arguments from a parsed frame, so this
		// is not expected; comparing the bytes as logged still works.
		return string(raw)
	}
	return string(canon)
}
