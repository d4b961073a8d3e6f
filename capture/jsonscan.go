package capture

import "encoding/binary"

// A validating JSON scanner. Reading a log is dominated by JSON work, so the
// envelope is validated and its members located in one pass; general JSON
// libraries would walk the bytes several times. It accepts exactly what
// encoding/json accepts (RFC 8259, invalid UTF-8 in strings allowed, nesting
// up to 10,000 levels).

// maxNesting matches encoding/json's limit.
const maxNesting = 10000

// MaxRawNesting is how deep a message the log keeps as raw JSON may nest:
// one level less than maxNesting, since the envelope holding it is a level
// of its own. A message nested deeper is logged as text, as one past
// maxNesting always was; were it kept as raw, no reader (ours, or
// encoding/json) could read its envelope.
const MaxRawNesting = maxNesting - 1

// strPlain marks the bytes a string can hold without a closer look: not a
// control character, quote or backslash.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

type jsonScanner struct {
	b     []byte
	depth int
	// strictUTF8 also rejects strings that are not valid UTF-8 (what the
	// log writer needs before it keeps a line as raw JSON); encoding/json
	// itself accepts them.
	strictUTF8 bool
	sawWS      bool // whitespace was skipped somewhere outside strings
	// limit is how deep values may nest; maxNesting when 0.
	limit int
}

// tooDeepAt reports whether nesting one more level (s.depth, just raised)
// passes the scanner's limit.
func (s *jsonScanner) tooDeepAt() bool {
	if s.limit > 0 {
		return s.depth > s.limit
	}
	return s.depth > maxNesting
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *jsonScanner) ws(i int) int {
	start := i
	for i < len(s.b) && isWS(s.b[i]) {
		i++
	}
	if i > start {
		s.sawWS = true
	}
	return i
}

// value validates the value at b[i] (no leading whitespace) and returns
// where it ends, or -1.
func (s *jsonScanner) value(i int) int {
	if i >= len(s.b) {
		return -1
	}
	switch c := s.b[i]; {
	case c == '{':
		return s.object(i, nil)
	case c == '[':
		return s.array(i)
	case c == '"':
		return s.str(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	}
	return -1
}

// object validates the object at b[i]. For each member it calls member with
// the spans of the key (quotes included) and of the value.
func (s *jsonScanner) object(i int, member func(ks, ke, vs, ve int) bool) int {
	if s.depth++; s.tooDeepAt() {
		return -1
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		s.depth--
		return i + 1
	}
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return -1
		}
		ks := i
		ke := s.str(i)
		if ke < 0 {
			return -1
		}
		i = s.ws(ke)
		if i >= len(s.b) || s.b[i] != ':' {
			return -1
		}
		vs := s.ws(i + 1)
		ve := s.value(vs)
		if ve < 0 {
			return -1
		}
		if member != nil && !member(ks, ke, vs, ve) {
			return -1
		}
		i = s.ws(ve)
		if i >= len(s.b) {
			return -1
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case '}':
			s.depth--
			return i + 1
		default:
			return -1
		}
	}
}

func (s *jsonScanner) array(i int) int {
	if s.depth++; s.tooDeepAt() {
		return -1
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == ']' {
		s.depth--
		return i + 1
	}
	for {
		i = s.value(i)
		if i < 0 {
			return -1
		}
		i = s.ws(i)
		if i >= len(s.b) {
			return -1
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case ']':
			s.depth--
			return i + 1
		default:
			return -1
		}
	}
}

func (s *jsonScanner) str(i int) int {
	if s.strictUTF8 {
		return s.strUTF8(i)
	}
	b := s.b
	i++
	for {
		// Eight bytes at a time while none of them needs a closer look.
		for i+8 <= len(b) && !needsLook(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			return -1 // a control character
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// needsLook reports whether any of the eight bytes in x is a control
// character, a quote or a backslash (SWAR: each test sets a byte's high bit).
func needsLook(x uint64) bool {
	control := (x - 0x20*ones) &^ x
	quote := x ^ ('"' * ones)
	backslash := x ^ ('\\' * ones)
	return (control|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (s *jsonScanner) literal(i int, lit string) int {
	if len(s.b)-i < len(lit) || string(s.b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// number validates -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (s *jsonScanner) number(i int) int {
	b := s.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
	}
	return i
}

// validJSON reports whether b is exactly one JSON value, whitespace around
// it allowed.
func validJSON(b []byte) bool {
	s := jsonScanner{b: b}
	i := s.ws(0)
	end := s.value(i)
	return end >= 0 && s.ws(end) == len(b)
}

// ArrayElements returns the elements of b, each a slice of b, when b is
// exactly one JSON array starting at its first byte.
func ArrayElements(b []byte) ([][]byte, bool) {
	if len(b) == 0 || b[0] != '[' || !validJSON(b) {
		return nil, false
	}
	s := jsonScanner{b: b}
	var elems [][]byte
	i := s.ws(1)
	if i < len(b) && b[i] == ']' {
		return nil, true
	}
	for i < len(b) {
		end := s.value(i)
		if end < 0 {
			return nil, false
		}
		elems = append(elems, b[i:end])
		i = s.ws(end)
		if i >= len(b) || b[i] == ']' {
			break
		}
		i = s.ws(i + 1) // past the comma
	}
	return elems, true
}

// ObjectMembers calls fn for each member of the JSON object raw, in order,
// with its decoded name and its value's text (a slice of raw). It reports
// false when raw is not an object.
func ObjectMembers(raw []byte, fn func(name string, value []byte)) bool {
	s := jsonScanner{b: raw}
	i := s.ws(0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	return s.object(i, func(ks, ke, vs, ve int) bool {
		fn(memberName(raw[ks:ke]), raw[vs:ve])
		return true
	}) >= 0
}

// tooDeep reports whether s opens a JSON object or array whose brackets,
// counted outside strings, nest deeper than maxNesting: a message the
// scanner (and encoding/json) refuses for its depth alone. One pass, no
// recursion, whatever the depth.
func tooDeep(s string) bool {
	i := 0
	for i < len(s) && isWS(s[i]) {
		i++
	}
	if i == len(s) || s[i] != '{' && s[i] != '[' {
		return false
	}
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > maxNesting {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}
