package capture

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzReader: any bytes give frames, a clean error or the torn-tail signal,
// never a panic or a hang.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"session_id":"a","seq":1}` + "\n" + `{"session_id":"b"`))
	f.Add([]byte("{\n\"a\":[1,{\"b\":\"}\"}]}{\"c\":2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		for i := 0; ; i++ {
			if _, _, err := r.Next(); err != nil {
				return
			}
			if i > len(data)+1 {
				t.Fatalf("more frames than bytes")
			}
		}
	})
}

// FuzzValidJSON holds the envelope scanner to encoding/json's verdict.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,-0,true,null,"x\u00e9\n"]}`, `{"a":01}`, `[1,]`, `"\x01"`, `{"a" 1}`, `1e`, `-`, `"\ud800"`, "\"\xff\"", ` {} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", data, got, want)
		}
	})
}
