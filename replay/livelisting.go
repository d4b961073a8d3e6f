package replay

import (
	"context"
	"encoding/json"
	"fmt"
)

// maxListPages bounds the pages of the replay's own tools/list: a server
// that issues a cursor forever does not hold the replay up.
const maxListPages = 100

// needsLiveListing reports whether the replay must list the live server's
// tools before its first call: some tools/call it is to send is one the
// recording's annotations let through, and the live server's must agree.
// With Options.All annotations decide nothing, and a replay that sends no
// tools/call has no use for a listing.
func (s *session) needsLiveListing() bool {
	if s.o.All {
		return false
	}
	for _, r := range s.rec.Steps {
		if r.Method != "tools/call" || (s.o.Only != nil && !s.o.Only(r)) {
			continue
		}
		if s.rec.SkipReason(r, false, s.o.Edited[r]) == "" {
			return true
		}
	}
	return false
}

// listLive lists the live server's tools, every page, before the first
// recorded request is replayed; observe keeps the tools and their
// annotations as for any replayed tools/list. When no complete listing
// comes back, unlisted says why, and no tool is replayed on the
// recording's word alone (liveSkipReason). The listing goes through the
// capture like every request, so it is in the replay log, where verify
// compares it with the recorded one; it is no outcome of its own.
func (s *session) listLive(ctx context.Context) {
	var cursor *string
	wait := max(s.o.CallTimeout, DefaultCallTimeout)
	for page := 0; page < maxListPages; page++ {
		params := json.RawMessage(nil)
		if cursor != nil {
			params = encode(map[string]string{"cursor": *cursor})
		}
		if s.rec.Modern() {
			params = s.ownMeta(params)
		}
		// The first request of a Modern replay meets a server that may
		// still be starting: like the handshake, it gets at least the
		// default call timeout.
		out := &Outcome{Request: &Request{Method: "tools/list"}}
		s.callWithin(ctx, wait, out, &exchange{method: "tools/list"}, params)
		why := ""
		switch {
		case s.res.Stopped != "":
			return // every request after it says why
		case out.TimedOut:
			why = fmt.Sprintf("its tools/list took longer than %s", wait)
		case out.Answer == nil:
			why = "its tools/list got no answer: " + out.Failure
		}
		if e, ok := decodeError(errorOf(out.Answer)); why == "" && ok {
			why = fmt.Sprintf("it refused tools/list: %s (code %d)", e.Message, e.Code)
		}
		var res struct {
			NextCursor *string `json:"nextCursor"`
		}
		if why == "" && json.Unmarshal(resultOf(out.Answer), &res) != nil {
			why = "its tools/list result is not an object"
		}
		if why != "" {
			s.unlisted = why
			return
		}
		if res.NextCursor == nil {
			return // observe made the listing
		}
		cursor = res.NextCursor
	}
	s.unlisted = fmt.Sprintf("its tools/list was still paging after %d pages", maxListPages)
}

// liveSkipReason says why a tools/call of name, which the recording lets
// through, is not sent after all ("" when it is): the live listing is
// read together with the recorded one (Recording.liveSkipReason). With
// Options.All annotations decide nothing.
func (s *session) liveSkipReason(name string) string {
	switch {
	case s.o.All:
		return ""
	case !s.listed && s.unlisted != "":
		return s.rec.liveSkipReason(name, nil, s.unlisted)
	case !s.listed:
		return s.rec.liveSkipReason(name, nil, "the replay holds no complete tools/list")
	}
	return s.rec.liveSkipReason(name, s.live[name], "")
}
