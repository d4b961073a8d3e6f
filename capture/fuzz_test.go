package capture

import (
	"bytes"
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
