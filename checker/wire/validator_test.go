package wire

import (
	"errors"
	"testing"
)

// This package's tests do not link schemacheck: Validate says so until a
// validator is registered, then calls it; a second registration panics.
func TestRegister(t *testing.T) {
	if Linked() {
		t.Fatal("a validator is linked into wire's own tests")
	}
	m := Message{Revision: "2025-11-25", Kind: Request, Method: "ping", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}
	if f, err := Validate(m); f != nil || !errors.Is(err, ErrNoValidator) {
		t.Fatalf("Validate with none registered: %v, %v", f, err)
	}
	want := &Finding{Revision: m.Revision, Subject: "ping request"}
	var got Message
	Register(func(m Message) (*Finding, error) { got = m; return want, nil })
	t.Cleanup(func() { validator = nil })
	if f, err := Validate(m); f != want || err != nil || got.Method != "ping" || !Linked() {
		t.Errorf("Validate: %v, %v (the validator saw %+v)", f, err, got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Register did not panic")
		}
	}()
	Register(func(Message) (*Finding, error) { return nil, nil })
}

func TestKnown(t *testing.T) {
	for _, rev := range Revisions {
		if !Known(rev) {
			t.Errorf("Known(%q) = false", rev)
		}
	}
	for _, rev := range []string{"", "2025-11-26", "draft"} {
		if Known(rev) {
			t.Errorf("Known(%q) = true", rev)
		}
	}
}
