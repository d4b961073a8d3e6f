package replay

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// inputResult is an MRTR InputRequiredResult.
type inputResult struct {
	ResultType    string                  `json:"resultType"`
	RequestState  *string                 `json:"requestState"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
}

type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// inputRequired decodes msg's result when it asks for input.
func inputRequired(msg json.RawMessage) (inputResult, bool) {
	var r inputResult
	res := resultOf(msg)
	if res == nil || json.Unmarshal(res, &r) != nil || r.ResultType != "input_required" {
		return r, false
	}
	return r, true
}

// inputAnswers answers one MRTR round from the recording: each key the
// server asks is answered with what the recorded client sent for that key
// in the same round, else in any round. A question with no recorded answer
// is declined: an elicitation with action decline, anything else by ending
// the call (why says so).
func (s *session) inputAnswers(r *Request, round int, asked map[string]inputRequest) (map[string]json.RawMessage, string) {
	keys := make([]string, 0, len(asked))
	for k := range asked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]json.RawMessage{}
	for _, k := range keys {
		if a, ok := recordedInput(r, round, k); ok {
			out[k] = a
			continue
		}
		q := asked[k]
		s.decline(fmt.Sprintf("%s %q (%s of %s): no recorded answer", q.Method, k, ordinal(round+1), describe(r)))
		if q.Method != "elicitation/create" {
			return nil, fmt.Sprintf("the server asked for %s (input %q), which the recording holds no answer to; the replay declined and ended the call", q.Method, k)
		}
		out[k] = json.RawMessage(`{"action":"decline"}`)
	}
	return out, ""
}

// recordedInput is the recorded answer to input key, from the same round
// when it holds one, else from the nearest other round.
func recordedInput(r *Request, round int, key string) (json.RawMessage, bool) {
	if round < len(r.Rounds) {
		if a, ok := r.Rounds[round][key]; ok {
			return a, true
		}
	}
	for _, rr := range r.Rounds {
		if a, ok := rr[key]; ok {
			return a, true
		}
	}
	return nil, false
}

// answer is the reply to a request the server sent (before Modern: an
// elicitation, a sampling request, roots/list, ping): the recorded
// client's next answer to that method, addressed to id. A ping needs no
// recording; anything else without one is declined and reported.
func (s *session) answer(id json.RawMessage, method string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.answers[method]; len(q) > 0 {
		s.answers[method] = q[1:]
		return withID(q[0], id)
	}
	switch method {
	case "ping":
		return response(id, json.RawMessage(`{}`), nil)
	case "elicitation/create":
		s.res.Declined = append(s.res.Declined, "elicitation/create: no recorded answer, declined")
		return response(id, json.RawMessage(`{"action":"decline"}`), nil)
	}
	s.res.Declined = append(s.res.Declined, method+": no recorded answer, refused")
	return response(id, nil, encode(map[string]any{
		"code": -32601, "message": "mcpsnoop replay: the recording holds no answer to " + method,
	}))
}

func (s *session) decline(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Declined = append(s.res.Declined, what)
}

// describe names a request in messages: method, name and recorded line.
func describe(r *Request) string {
	s := r.Method
	if r.Name != "" {
		s += " " + strconv.Quote(r.Name)
	}
	return s + " at line " + strconv.Itoa(r.Line)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix + " round"
}
