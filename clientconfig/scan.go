package clientconfig

import (
	"encoding/json"
	"errors"
)

// A config file is edited as text, not decoded and re-encoded: only the one
// server entry that changes is rewritten, so the user's formatting, key
// order and every other entry keep their exact bytes.
// The scanner below finds where values start and end in a document that
// json.Valid has already accepted, so it never has to report syntax errors.

// member is one "key": value pair of an object, by byte offsets.
type member struct {
	key              string
	keyStart         int // offset of the key's opening quote
	valStart, valEnd int // the value is data[valStart:valEnd]
}

// objectMembers lists the members of the object starting at data[start]
// ('{'), in file order, duplicates included.
func objectMembers(data []byte, start int) ([]member, error) {
	if start >= len(data) || data[start] != '{' {
		return nil, errors.New("not an object")
	}
	var out []member
	i := skipSpace(data, start+1)
	if data[i] == '}' {
		return nil, nil
	}
	for {
		keyStart := i
		keyEnd := scanString(data, i)
		var key string
		if err := json.Unmarshal(data[keyStart:keyEnd], &key); err != nil {
			return nil, err
		}
		i = skipSpace(data, keyEnd)
		i = skipSpace(data, i+1) // the colon
		valEnd := scanValue(data, i)
		out = append(out, member{key: key, keyStart: keyStart, valStart: i, valEnd: valEnd})
		i = skipSpace(data, valEnd)
		if data[i] == '}' {
			return out, nil
		}
		i = skipSpace(data, i+1) // the comma
	}
}

// lastMember finds the member named key; like JSON.parse and encoding/json,
// a duplicated key means its last value.
func lastMember(members []member, key string) (member, bool) {
	for i := len(members) - 1; i >= 0; i-- {
		if members[i].key == key {
			return members[i], true
		}
	}
	return member{}, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the offset just past the string starting at data[i].
func scanString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// scanValue returns the offset just past the value starting at data[i].
func scanValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return scanString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = scanString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
