package checker

import (
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// parking is what an input_required answer left a call waiting with: the
// requestState it issued (see stateValue, and whether the member was there
// at all) and the key set of its inputRequests.
type parking struct {
	statePresent bool
	state        string
	keys         string // sorted inputRequests keys joined by NUL
}

// park leaves c waiting for a retry after an input_required result.
func (s *session) park(c *call, m *message) {
	p := &parking{}
	if st := m.resultField("requestState"); st.Exists() {
		p.statePresent, p.state = true, clone(stateValue(st))
	}
	p.keys = clone(objectKeys(m.resultField("inputRequests")))
	if c.park == nil {
		s.parked = append(s.parked, c)
	}
	c.park = p
}

// unpark forgets that c was waiting for a retry.
func (s *session) unpark(c *call) {
	if c.park == nil {
		return
	}
	c.park = nil
	for i, p := range s.parked {
		if p == c {
			s.parked = append(s.parked[:i], s.parked[i+1:]...)
			return
		}
	}
}

// linkRetry returns the parked call a request continues, if it is an MRTR
// retry that links: an exact requestState echo first, else the one parked
// call with the same method, operation name and inputResponses key set (two
// or more candidates link nothing). A fallback link says how the retry
// treated the state it was given (W26-W28).
func (s *session) linkRetry(fc *frameCtx) *call {
	m := &fc.msg
	state := m.paramField("requestState")
	responses := m.paramField("inputResponses")
	keys := objectKeys(responses)
	hasState := state.Exists() && state.Type != gjson.Null
	if !hasState && keys == "" {
		return nil
	}
	if hasState {
		for _, c := range s.parked {
			if c.park.statePresent && c.park.state == stateValue(state) {
				s.unpark(c)
				return c
			}
		}
	}
	if keys == "" {
		return nil
	}
	var found *call
	name := m.opName()
	for _, c := range s.parked {
		if c.park.keys == keys && c.method == m.method && c.tool == name {
			if found != nil {
				return nil // ambiguous: refuse to guess
			}
			found = c
		}
	}
	if found == nil {
		return nil
	}
	issued := found.park
	switch {
	case issued.statePresent && !state.Exists():
		fc.warn("W26", "MRTR retry is missing requestState", "MRTR retry is missing requestState")
	case !issued.statePresent && state.Exists():
		fc.warn("W27", "MRTR retry invented requestState", "MRTR retry invented requestState")
	case issued.statePresent && state.Exists() && issued.state != stateValue(state):
		fc.warn("W28", "MRTR retry changed requestState", "MRTR retry changed requestState")
	}
	s.unpark(found)
	return found
}

// stateValue is what an echo of requestState must reproduce: the string it
// encodes (so "a<b" and "a\u003cb" are the same state), or for a value that
// is not a string, its JSON text.
func stateValue(v gjson.Result) string {
	if v.Type == gjson.String {
		return "s" + v.Str
	}
	return "j" + v.Raw
}

// objectKeys returns an object's member names, sorted and joined by NUL;
// "" for an empty object or a non-object.
func objectKeys(v gjson.Result) string {
	if !v.IsObject() {
		return ""
	}
	var keys []string
	v.ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.Str)
		return true
	})
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}
