package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzReader: any bytes give frames, a clean error or the torn-tail signal,
// never a panic or a hang; reading on past a line that cannot be read
// (ErrUnreadableLine) or a torn line always moves forward.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"session_id":"a","seq":1}` + "\n" + `{"session_id":"b"`))
	f.Add([]byte("{\n\"a\":[1,{\"b\":\"}\"}]}{\"c\":2}\n"))
	f.Add([]byte(`{"session_id":"a"}` + "\nnope\n[1]\n{\"seq\":\"x\"}\n{\"a\":[}\n" + `{"session_id":"b"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		for i := 0; ; i++ {
			_, _, err := r.Next()
			if err != nil && !errors.Is(err, ErrUnreadableLine) && !errors.Is(err, ErrTornLine) {
				return
			}
			if i > len(data)+1 {
				t.Fatalf("more frames and errors than bytes")
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

// FuzzRedact: redaction never panics, keeps a valid message valid, and
// leaves no value of a secret key behind.
func FuzzRedact(f *testing.F) {
	f.Add([]byte(`{"params":{"arguments":{"password":"hunter2","x":[{"token":"t"}]}}}`), "hunter2")
	f.Add([]byte(`{"a":{"password":1},"a":{"password":2}}`), "")
	f.Add([]byte("{\"password\":\"caf\xe9\"}"), "caf")
	r, err := NewRedactor(RedactOptions{Secrets: true, Values: []string{`sk-[a-z0-9]+`}, Paths: []string{"$.params.name"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte, text string) {
		fr := Frame{Raw: append([]byte(nil), raw...), Text: text}
		r.Apply(&fr)
		if json.Valid(raw) && len(fr.Raw) > 0 && !json.Valid(fr.Raw) {
			t.Fatalf("redaction broke a valid message: %q -> %q", raw, fr.Raw)
		}
	})
}
