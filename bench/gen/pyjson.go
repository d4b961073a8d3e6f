package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON as Python's json module writes it, for the values gen.py builds:
// dicts keep their insertion order (obj), lists are []any, strings,
// ints, floats (written as Python's repr), booleans and None (nil).

// obj is a Python dict: members in insertion order.
type obj []member

type member struct {
	key string
	val any
}

// o builds an obj from key, value pairs.
func o(kv ...any) obj {
	d := make(obj, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		d = append(d, member{kv[i].(string), kv[i+1]})
	}
	return d
}

// set sets key as a dict does: in place when present, else appended.
func (d *obj) set(key string, v any) {
	for i := range *d {
		if (*d)[i].key == key {
			(*d)[i].val = v
			return
		}
	}
	*d = append(*d, member{key, v})
}

// dumps is gen.py's dumps: json.dumps(v, separators=(",", ":"),
// ensure_ascii=False).
func dumps(v any) string {
	var b strings.Builder
	writeJSON(&b, v, false, ",", ":")
	return b.String()
}

// dumpsDefault is json.dumps(v) with its defaults: ASCII only, ", " and
// ": " between items.
func dumpsDefault(v any) string {
	var b strings.Builder
	writeJSON(&b, v, true, ", ", ": ")
	return b.String()
}

func writeJSON(b *strings.Builder, v any, ascii bool, itemSep, keySep string) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(pyFloatRepr(v))
	case string:
		writeString(b, v, ascii)
	case obj:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteString(itemSep)
			}
			writeString(b, m.key, ascii)
			b.WriteString(keySep)
			writeJSON(b, m.val, ascii, itemSep, keySep)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(itemSep)
			}
			writeJSON(b, e, ascii, itemSep, keySep)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(itemSep)
			}
			writeString(b, e, ascii)
		}
		b.WriteByte(']')
	case rawJSON:
		b.WriteString(string(v))
	default:
		panic("gen: no JSON for this value")
	}
}

// rawJSON is JSON text written as is.
type rawJSON string

// writeString writes s as Python's json does: ", \ and control
// characters escaped (\n, \r, \t, \b, \f, else \u00XX), and with ascii
// every character outside printable ASCII as \uXXXX (a surrogate pair
// above U+FFFF).
func writeString(b *strings.Builder, s string, ascii bool) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		b.WriteByte(hex[r>>12&0xf])
		b.WriteByte(hex[r>>8&0xf])
		b.WriteByte(hex[r>>4&0xf])
		b.WriteByte(hex[r&0xf])
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				u4(r)
			case ascii && r > 0x7e:
				if r > 0xffff {
					r -= 0x10000
					u4(0xd800 | (r>>10)&0x3ff)
					u4(0xdc00 | r&0x3ff)
				} else {
					u4(r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// pyFloatRepr is Python's repr of a finite float: the shortest digits that
// read back as f, in positional notation when the decimal exponent is
// from -4 to 15 (with ".0" when there is no fraction), else as d.ddde±XX.
func pyFloatRepr(f float64) string {
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expPart)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		out += "e" + sign + e
	} else {
		point := exp + 1 // digits before the decimal point
		switch {
		case point <= 0:
			out = "0." + strings.Repeat("0", -point) + digits
		case point >= len(digits):
			out = digits + strings.Repeat("0", point-len(digits)) + ".0"
		default:
			out = digits[:point] + "." + digits[point:]
		}
	}
	if neg {
		out = "-" + out
	}
	return out
}

// pyRound is round(f, n) for a float: the correctly rounded decimal with
// n digits after the point (ties to even), read back as a float.
func pyRound(f float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', n, 64), 64)
	return r
}

// pyLen is len() of a str: its code points.
func pyLen(s string) int { return utf8.RuneCountInString(s) }

// pySlice is s[:n] for a str, n code points (n >= 0).
func pySlice(s string, n int) string {
	if n >= len(s) {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
