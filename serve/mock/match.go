package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Mode is how a live request finds its recorded one.
type Mode int

const (
	// MethodParams matches method and params, ignoring _meta and the id.
	MethodParams Mode = iota
	// Sequential matches the next recorded request, if its method is the
	// live one's.
	Sequential
	// Exact matches method and params, _meta included.
	Exact
)

// ParseMode reads a --match value.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "method-params", "":
		return MethodParams, nil
	case "sequential":
		return Sequential, nil
	case "exact":
		return Exact, nil
	}
	return 0, fmt.Errorf("unknown match mode %q: use method-params, sequential or exact", s)
}

func (m Mode) String() string {
	switch m {
	case Sequential:
		return "sequential"
	case Exact:
		return "exact"
	}
	return "method-params"
}

// JSON-RPC error codes of a miss.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// handshake reports whether a method opens a conversation: answered with
// the recorded answer whatever its params (they name the client), and
// again on every conversation.
func handshake(method string) bool { return method == "initialize" || method == "server/discover" }

// matcher finds recorded requests for one conversation's live ones.
type matcher struct {
	rec  *Recording
	mode Mode

	mu   sync.Mutex
	used map[*Exchange]bool
	last map[string]*Exchange // by key: the last match, answered again when every match is used
	next int                  // Sequential: the next recorded request to answer
	// issued maps a requestState the mock sent (in a recorded
	// input_required answer) to the exchange it answered.
	issued map[string]*Exchange
}

func newMatcher(rec *Recording, mode Mode) *matcher {
	return &matcher{rec: rec, mode: mode, used: map[*Exchange]bool{}, last: map[string]*Exchange{}, issued: map[string]*Exchange{}}
}

// Miss is a request with no recorded match.
type Miss struct {
	Code    int
	Message string
	Closest *Exchange // nil when the recording holds no request at all
}

// match finds the recorded exchange a live request stands for.
func (m *matcher) match(method string, params json.RawMessage) (*Exchange, *Miss) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var x *Exchange
	switch {
	case handshake(method):
		x = m.first(method)
	case m.mode == Sequential:
		x = m.sequential(method)
	default:
		x = m.byParams(method, params)
	}
	if x == nil {
		return nil, m.miss(method, params)
	}
	m.used[x] = true
	if x.issuedSet {
		m.issued[x.issued] = x
	}
	return x, nil
}

// first is the first recorded request of a method.
func (m *matcher) first(method string) *Exchange {
	for _, x := range m.rec.Exchanges {
		if x.Method == method {
			return x
		}
	}
	return nil
}

// sequential is the next recorded request (the handshake aside) when its
// method is the live one's; a miss leaves the place where it was.
func (m *matcher) sequential(method string) *Exchange {
	for m.next < len(m.rec.Exchanges) && handshake(m.rec.Exchanges[m.next].Method) {
		m.next++
	}
	if m.next >= len(m.rec.Exchanges) || m.rec.Exchanges[m.next].Method != method {
		return nil
	}
	m.next++
	return m.rec.Exchanges[m.next-1]
}

// byParams is the first recorded request of the method whose params match
// (ignoring _meta unless Exact) that has not been answered yet, else the
// last one answered. For an MRTR retry, the recorded retry that continues
// the exchange whose answer issued the live requestState comes first.
func (m *matcher) byParams(method string, params json.RawMessage) *Exchange {
	base, full := matchKeys(params)
	k := base
	if m.mode == Exact {
		k = full
	}
	retry := isRetry(gjson.ParseBytes(params))
	var prev *Exchange
	if retry {
		prev = m.issued[gjson.GetBytes(params, "requestState").String()]
	}
	var first *Exchange
	for _, x := range m.rec.Exchanges {
		xk := x.base
		if m.mode == Exact {
			xk = x.full
		}
		if x.Method != method || x.retry != retry || xk != k {
			continue
		}
		if prev != nil && x.prev == prev {
			return x
		}
		if first == nil && !m.used[x] {
			first = x
		}
	}
	if first != nil {
		m.last[method+"\x00"+k] = first
		return first
	}
	return m.last[method+"\x00"+k]
}

// miss builds the answer to a request nothing matched: -32601 when no
// recorded request has its method, else -32602, naming the closest
// recorded request either way.
func (m *matcher) miss(method string, params json.RawMessage) *Miss {
	name := operationName(method, gjson.ParseBytes(params))
	var closest *Exchange
	best := -1
	sameMethod := false
	for _, x := range m.rec.Exchanges {
		score := 0
		switch {
		case x.Method == method && x.Name == name:
			score = 3 << 16
		case x.Method == method:
			score = 2 << 16
		default:
			score = commonPrefix(x.Method, method)
		}
		if x.Method == method {
			sameMethod = true
			if m.mode == Sequential && !m.used[x] {
				score++ // the next one in order, not one answered already
			}
		}
		if score > best {
			closest, best = x, score
		}
	}
	ms := &Miss{Code: codeMethodNotFound, Closest: closest}
	switch {
	case !sameMethod:
		ms.Message = "the recording holds no " + method + " request"
	case m.mode == Sequential:
		ms.Message = method + " is not the next request in the recording"
		if m.next < len(m.rec.Exchanges) {
			ms.Message += " (that is " + m.rec.Exchanges[m.next].Describe() + ")"
		} else {
			ms.Message += " (every recorded request was answered)"
		}
		ms.Code = codeInvalidParams
	default:
		ms.Message = "no recorded " + method + " request has these params"
		if m.mode == Exact {
			ms.Message = "no recorded " + method + " request has exactly these params (_meta included)"
		}
		ms.Code = codeInvalidParams
	}
	if closest != nil {
		ms.Message += "; the closest recorded request is " + closest.Describe()
		// Its params as matching compares them: _meta only in exact.
		if p := closest.base; m.mode == Exact && closest.full != "" {
			ms.Message += " with params " + clip(closest.full, 200)
		} else if p != "" {
			ms.Message += " with params " + clip(p, 200)
		}
	}
	return ms
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// matchKeys are what matching compares of params: a canonical form
// (object keys sorted, numbers as written) without _meta (base) and with
// it (full), both without an MRTR retry's requestState, which a server
// makes anew each time.
func matchKeys(params json.RawMessage) (base, full string) {
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if len(params) == 0 || d.Decode(&v) != nil {
		return "", ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		s := canonical(v)
		return s, s
	}
	delete(obj, "requestState")
	full = canonical(obj)
	delete(obj, "_meta")
	if len(obj) == 0 {
		return "", full
	}
	return canonical(obj), full
}

// canonical encodes a decoded value with sorted keys (encoding/json sorts
// map keys) and no HTML escaping.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimRight(b.String(), "\n")
}
