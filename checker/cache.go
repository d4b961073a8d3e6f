package checker

import (
	"strconv"
	"time"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"

	"github.com/tidwall/gjson"
)

// W17-W23: cache hints on cacheable results (check.md 3.3 B).

// cacheState is what these rules remember about a session: for each cursor a
// paginated list page issued, the cacheScope that page declared (W23).
type cacheState struct {
	scopes map[pageCursor]string
	ring   []pageCursor // insertion order, to bound the memory
	next   int
	// fresh holds, per cacheable request, until when its last answer said
	// it stays fresh (its ttlMs), for the stale-refetch note.
	fresh map[cachedRequest]time.Time
}

// cachedRequest names what a cacheable request fetches: the method, the
// page (cursor) or resource (uri), on one HTTP connection.
type cachedRequest struct {
	method, target, conn string
}

// freshWindow bounds how many fresh answers a session remembers; past it
// the memory starts over and some re-fetches go unnoted.
const freshWindow = 1 << 12

// answered records that the answer to c stays fresh until until.
func (cs *cacheState) answered(c *call, until time.Time) {
	if cs.fresh == nil || len(cs.fresh) >= freshWindow {
		cs.fresh = map[cachedRequest]time.Time{}
	}
	cs.fresh[cachedRequest{c.method, cacheTarget(c), c.key.conn}] = until
}

// refetch reports whether a request for c's target comes while an earlier
// answer to the same request is still fresh: the client fetched again what
// it was told it could keep. A note, never a warning
// (warn-cache-stale-refetch-is-not-warning).
func (cs *cacheState) refetch(c *call, at time.Time) bool {
	until, ok := cs.fresh[cachedRequest{c.method, cacheTarget(c), c.key.conn}]
	return ok && at.Before(until)
}

// cacheTarget is what a cacheable request names beyond its method.
func cacheTarget(c *call) string {
	if c.method == "resources/read" {
		return c.tool // params.uri
	}
	return c.cursor
}

// pageCursor names a later page: the list method and the nextCursor issued.
type pageCursor struct {
	method, cursor string
}

// cursorWindow bounds how many issued cursors a session remembers. A cursor
// used after this many others were issued is simply not compared.
const cursorWindow = 1 << 12

// issued records the scope of the page that issued cursor for method.
func (cs *cacheState) issued(method, cursor, scope string) {
	if cs.scopes == nil {
		cs.scopes = map[pageCursor]string{}
	}
	// Assigning to a map replaces a string key too, so it is always a copy.
	k := pageCursor{method: method, cursor: clone(cursor)}
	if _, known := cs.scopes[k]; !known {
		if len(cs.ring) < cursorWindow {
			cs.ring = append(cs.ring, k)
		} else {
			delete(cs.scopes, cs.ring[cs.next])
			cs.ring[cs.next] = k
			cs.next = (cs.next + 1) % cursorWindow
		}
	}
	cs.scopes[k] = clone(scope)
}

// cacheableMethod reports the methods whose results carry cache hints.
func cacheableMethod(method string) bool {
	switch method {
	case "server/discover", "tools/list", "prompts/list", "resources/list",
		"resources/templates/list", "resources/read":
		return true
	}
	return false
}

// paginatedMethod reports the list methods whose pages share one scope.
func paginatedMethod(method string) bool {
	switch method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}

func (s *session) cacheRules(fc *frameCtx, c *call) {
	m := &fc.msg
	// A linked MRTR retry answers as its original call: more than one round
	// trip means this answer is to a retry request.
	if !cacheableMethod(c.method) || !m.hasResult || c.retryRequest || c.roundTrips > 1 ||
		!atLeast20260728(c.revision) || !m.result.IsObject() {
		return
	}
	rtype := m.resultType()
	if rtype != "" && rtype != "complete" {
		return
	}

	// One walk over the result finds every member the rules read.
	var ttl, scope, next, rt gjson.Result
	raw := stringBytes(m.result.Raw)
	jsonwalk.Members(raw, 0, func(ks, ke, vs int) int {
		key := raw[ks:ke]
		ve := jsonwalk.SkipValue(raw, vs)
		var dst *gjson.Result
		switch keyName(key) {
		case "ttlMs":
			dst = &ttl
		case "cacheScope":
			dst = &scope
		case "nextCursor":
			dst = &next
		case "resultType":
			dst = &rt
		}
		if dst != nil && !dst.Exists() {
			*dst = gjson.Parse(bytesString(raw[vs:ve]))
		}
		return ve
	})
	if rtype == "" && rt.Exists() {
		return // a resultType that is not a non-empty string: W14's business
	}

	// W17, W18: ttlMs is a safe integer of zero or more.
	ttlSet := ttl.Exists() && ttl.Type != gjson.Null
	if ttlSet && ttl.Type == gjson.Number {
		fc.hasCacheTTL, fc.cacheTTL = true, ttl.Int()
		// Only exports and the viewer show the stale-refetch note.
		if isInt, negative := safeInteger(ttl.Raw); isInt && !negative && s.e.cfg.OnFrame != nil {
			s.cache.answered(c, fc.f.TS.Add(time.Duration(min(ttl.Int(), int64(1)<<40))*time.Millisecond))
		}
	}
	if scope.Type == gjson.String {
		fc.cacheScope = scope.Str
	}
	if ttlSet {
		isInt, negative := ttl.Type == gjson.Number, false
		if isInt {
			isInt, negative = safeInteger(ttl.Raw)
		}
		switch {
		case !isInt:
			fc.warn("W17", "ttlMs is <raw JSON>, which is not an integer",
				"ttlMs is "+ttl.Raw+", which is not an integer")
		case negative:
			fc.warn("W18", "ttlMs is <n>, and 2026-07-28 requires a value of zero or more",
				"ttlMs is "+ttl.Raw+", and 2026-07-28 requires a value of zero or more")
		}
	}

	// W19-W21: cacheScope is public or private.
	scopeStr := ""
	switch {
	case !scope.Exists() || scope.Type == gjson.Null:
	case scope.Type != gjson.String:
		fc.warn("W19", "cacheScope is <raw JSON>, which is not a string",
			"cacheScope is "+scope.Raw+", which is not a string")
	case scope.Str == "":
		fc.warn("W20", "cacheScope is empty, and 2026-07-28 defines only public and private",
			"cacheScope is empty, and 2026-07-28 defines only public and private")
	default:
		scopeStr = scope.Str
		if scopeStr != "public" && scopeStr != "private" {
			fc.warn("W21", "cacheScope is <s %q>, and 2026-07-28 defines only public and private",
				"cacheScope is "+strconv.Quote(scopeStr)+", and 2026-07-28 defines only public and private")
		}
	}

	// W22: an explicit "complete" result must say how long it stays fresh
	// (an absent resultType is W13's).
	if !ttlSet && rtype == "complete" {
		fc.warn("W22", "cacheable <method> result declares no ttlMs, which 2026-07-28 requires",
			"cacheable "+c.method+" result declares no ttlMs, which 2026-07-28 requires")
	}

	// W23: every page of one list request shares the first page's scope.
	if !paginatedMethod(c.method) {
		return
	}
	if c.cursor != "" && scopeStr != "" {
		if first := s.cache.scopes[pageCursor{method: c.method, cursor: c.cursor}]; first != "" && first != scopeStr {
			fc.warn("W23", "cacheScope <later %q> on a later page of <method> disagrees with <first %q> on the first, and 2026-07-28 requires one scope per list request",
				"cacheScope "+strconv.Quote(scopeStr)+" on a later page of "+c.method+" disagrees with "+strconv.Quote(first)+
					" on the first, and 2026-07-28 requires one scope per list request")
		}
	}
	if next.Type == gjson.String && next.Str != "" {
		s.cache.issued(c.method, next.Str, scopeStr)
	}
}

// stringBytes views s as bytes without copying; the walk only reads them.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// safeInteger judges a JSON number by its exact decimal value: whether it is
// an integer within ±(2^53-1) (so 60000.0 and 6e4 are), and if so whether it
// is below zero.
func safeInteger(raw string) (isInt, negative bool) {
	i := 0
	neg := false
	if i < len(raw) && raw[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	intEnd := i
	if intEnd == intStart {
		return false, false
	}
	fracStart, fracEnd := i, i
	if i < len(raw) && raw[i] == '.' {
		i++
		fracStart = i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		fracEnd = i
	}
	exp := 0
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		expNeg := false
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			expNeg = raw[i] == '-'
			i++
		}
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			if exp < 1<<20 {
				exp = exp*10 + int(raw[i]-'0')
			}
			i++
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(raw) {
		return false, false
	}

	// The significant digits D are the integer digits then the fraction
	// digits; the decimal point sits after the first point of them.
	n := (intEnd - intStart) + (fracEnd - fracStart)
	digit := func(k int) byte {
		if k < intEnd-intStart {
			return raw[intStart+k]
		}
		return raw[fracStart+k-(intEnd-intStart)]
	}
	point := (intEnd - intStart) + exp
	lead := 0
	for lead < n && digit(lead) == '0' {
		lead++
	}
	if lead == n {
		return true, false // zero, however written
	}
	point -= lead
	last := n
	for digit(last-1) == '0' {
		last--
	}
	sig := last - lead
	if sig > point {
		return false, false // a fraction remains
	}
	if point > 16 {
		return false, false // 2^53-1 has 16 digits
	}
	var v uint64
	for k := 0; k < point; k++ {
		d := byte('0')
		if k < sig {
			d = digit(lead + k)
		}
		v = v*10 + uint64(d-'0')
	}
	if v > 1<<53-1 {
		return false, false
	}
	return true, neg
}
