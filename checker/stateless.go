package checker

// W52-W54: a 2026-07-28 server must refuse a request it cannot serve as
// sent: one without the _meta every request carries (-32602), one whose
// routing headers disagree with its body (-32020), one naming a protocol
// version it does not support (-32022), each with HTTP 400. The client's
// half is W43/W44, W36-W40/W45 and the version it named; answering such a
// request with a result is the server's fault.

import (
	"slices"
	"strconv"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/tidwall/gjson"
)

// refusal is why a 2026-07-28 server must refuse a request; zero for none.
type refusal uint8

const (
	refuseNone refusal = iota
	refuseMeta
	refuseHeaders
	refuseVersion
)

// refusable notes why the request the frame carries must be refused (the
// first reason found stands).
func (fc *frameCtx) refusable(why refusal) {
	if c := fc.call; c != nil && fc.msg.kind == kindRequest && c.mustRefuse == refuseNone {
		c.mustRefuse = why
	}
}

// versionRefusal notes a request declaring a protocol version the server
// does not support: one its server/discover answer did not list, else one
// that is no revision's date, or a date after the request's own.
func (s *session) versionRefusal(fc *frameCtx, c *call) {
	v := c.revision
	switch {
	case v == "":
	case s.rev.supported != nil && atLeast20260728(v):
		if !slices.Contains(s.rev.supported, v) {
			c.mustRefuse = refuseVersion
		}
	case wire.Known(v):
	case !dateLike(v):
		c.mustRefuse = refuseVersion // what is no date is no revision at all
	case !fc.f.TS.IsZero() && v > fc.f.TS.UTC().Format(time.DateOnly):
		// A revision is published before anyone speaks it: one dated
		// after the request cannot be supported. An unknown earlier date
		// may be a revision newer than this build knows.
		c.mustRefuse = refuseVersion
	}
}

// dateLike reports a YYYY-MM-DD string, the form of every revision.
func dateLike(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range []byte(v) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// noteSupported keeps the versions a server/discover answer lists.
func (s *session) noteSupported(fc *frameCtx, c *call) {
	if c.method != "server/discover" || !fc.msg.hasResult {
		return
	}
	var v []string
	fc.msg.resultField("supportedVersions").ForEach(func(_, x gjson.Result) bool {
		if x.Type == gjson.String {
			v = append(v, clone(x.Str))
		}
		return true
	})
	if v != nil {
		s.rev.supported = v
	}
}

// mustRefuseRules applies W52-W54 to the answer of a client's request
// declaring 2026-07-28 or later.
func (s *session) mustRefuseRules(fc *frameCtx, c *call) {
	s.noteSupported(fc, c)
	m := &fc.msg
	if c.mustRefuse == refuseNone || m.hasError || !m.hasResult || c.key.dir != capture.ClientToServer ||
		m.resultType() == "input_required" || (c.mustRefuse != refuseVersion && !atLeast20260728(c.revision)) {
		return
	}
	switch c.mustRefuse {
	case refuseMeta:
		fc.warn("W52", "server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400)",
			"server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400)")
	case refuseHeaders:
		fc.warn("W53", "server answered with a result a request whose routing headers disagree with its body, which 2026-07-28 requires it to refuse (-32020, HTTP 400)",
			"server answered with a result a request whose routing headers disagree with its body, which 2026-07-28 requires it to refuse (-32020, HTTP 400)")
	case refuseVersion:
		fc.warn("W54", "server answered with a result a request naming protocol version <v>, which it does not support: 2026-07-28 requires -32022 and HTTP 400",
			"server answered with a result a request naming protocol version "+strconv.Quote(s.serverWords(c.revision))+", which it does not support: 2026-07-28 requires -32022 and HTTP 400")
	}
}
