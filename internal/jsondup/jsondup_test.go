package jsondup

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestLastWins(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`},
		{`{"name":"safe","name":"delete_repo"}`, `{"name":"delete_repo"}`},
		{`{"name":"safe","x":1,"name":"delete_repo"}`, `{"x":1,"name":"delete_repo"}`},
		{`{"x":1,"name":"safe","name":"delete_repo"}`, `{"x":1,"name":"delete_repo"}`},
		{`{ "a" : 1 , "a" : 2 , "a" : 3 }`, `{ "a" : 3 }`},
		{`{"params":{"name":"a","name":"b"},"params":{"name":"c"}}`, `{"params":{"name":"c"}}`},
		{`[{"k":1,"k":2},{"k":3}]`, `[{"k":2},{"k":3}]`},
		{`{"n\u0061me":"safe","name":"delete_repo"}`, `{"name":"delete_repo"}`},
		{`{"a":{"b":1,"b":{"c":1,"c":2}}}`, `{"a":{"b":{"c":2}}}`},
	}
	for _, tc := range tests {
		got := string(LastWins([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("LastWins(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("LastWins(%s) = %s: not JSON", tc.in, got)
		}
		// Go's decoder, like the servers', takes the last occurrence: the
		// result decodes to what the input does.
		var a, b any
		json.Unmarshal([]byte(tc.in), &a)
		json.Unmarshal([]byte(got), &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("LastWins(%s) decodes to %v, the input to %v", tc.in, b, a)
		}
		if Has([]byte(tc.in)) != (tc.in != tc.want) {
			t.Errorf("Has(%s) = %v", tc.in, Has([]byte(tc.in)))
		}
	}
}

func FuzzLastWins(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"k":1,"k":{"k":2,"k":3}}]`, `{"x":[1,{"y":1,"y":2}],"x":0}`, `"s"`, `{"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		out := LastWins(raw)
		if !json.Valid(out) {
			t.Fatalf("LastWins(%s) = %s: not JSON", raw, out)
		}
		var a, b any
		json.Unmarshal(raw, &a)
		json.Unmarshal(out, &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("LastWins(%s) = %s decodes differently", raw, out)
		}
		if Has(out) {
			t.Fatalf("LastWins(%s) = %s still repeats a name", raw, out)
		}
	})
}

func TestHas(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":2}`, false},
		{`{"a":1,"a":2}`, true},
		{`{"a":1,"\u0061":2}`, true},
		{`[{"k":1},{"k":2}]`, false},
		{`{"x":{"k":1},"y":{"k":2}}`, false},
		{`{"x":[1,{"k":1,"k":2}]}`, true},
		{`{"a":{"b":1,"c":[{"b":2}]},"d":[1,{"a":2}]}`, false},
		{` "s" `, false},
		{`{}`, false},
	} {
		if got := Has([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzHas holds the fast walk to the plain reading: the members Go's
// decoder sees, counted.
func FuzzHas(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `{"é":1,"é":2}`, `{"a":[{"b":1},{"b":1}]}`,
		`{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"17":0,"1":0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		_, slow := Repeated(raw)
		if got := Has(raw); got != slow {
			t.Fatalf("Has(%s) = %v, the full walk says %v", raw, got, slow)
		}
	})
}
