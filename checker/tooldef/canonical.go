package tooldef

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// CanonicalJSON re-encodes one JSON value in the form tool baselines store
// and drift compares (check.md section 4.2): object keys sorted (byte order,
// recursively), numbers exactly as written, no insignificant whitespace, and
// strings in encoding/json's spelling except that <, > and & stay literal.
//
// A duplicated object key keeps its last value, as encoding/json does. The
// error for input that is not exactly one JSON value is json.Unmarshal's.
func CanonicalJSON(v []byte) (json.RawMessage, error) {
	x, err := canonicalDecode(v)
	if err != nil {
		return nil, err
	}
	return canonicalEncode(x)
}

// canonicalDecode decodes one JSON value with numbers kept as json.Number, so
// that 1.0, 1e3, -0 and integers past float64's precision survive verbatim.
func canonicalDecode(v []byte) (any, error) {
	if !json.Valid(v) {
		// Valid says only yes or no; Unmarshal says why, in the words
		// users already know from every other Go JSON error.
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, err
		}
		return nil, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		// Unreachable after json.Valid, which rejects trailing data.
		return nil, errors.New("invalid character after top-level value")
	}
	return x, nil
}

// canonicalEncode writes a value from canonicalDecode back out. encoding/json
// already sorts map keys and writes a json.Number's text unchanged; all that
// is left to ask of it is no HTML escaping and no trailing newline.
func canonicalEncode(x any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
