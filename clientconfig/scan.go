package clientconfig

import (
	"encoding/json"
	"errors"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
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
	var err error
	jsonwalk.Members(data, start, func(ks, ke, vs int) int {
		ve := jsonwalk.SkipValue(data, vs)
		var key string
		if e := json.Unmarshal(data[ks:ke], &key); e != nil && err == nil {
			err = e
		}
		out = append(out, member{key: key, keyStart: ks, valStart: vs, valEnd: ve})
		return ve
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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

// span is one value of an array, by byte offsets.
type span struct{ start, end int }

// arrayElements lists the values of the array starting at data[start]
// ('['), in order.
func arrayElements(data []byte, start int) []span {
	var out []span
	i := jsonwalk.SkipWS(data, start+1)
	for i < len(data) && data[i] != ']' {
		end := jsonwalk.SkipValue(data, i)
		out = append(out, span{i, end})
		i = jsonwalk.SkipWS(data, end)
		if i < len(data) && data[i] == ',' {
			i = jsonwalk.SkipWS(data, i+1)
		}
	}
	return out
}
