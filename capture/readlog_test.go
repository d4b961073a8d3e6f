package capture

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestReadLog(t *testing.T) {
	good := `{"session_id":"s","seq":1}` + "\n"
	tests := []struct {
		name     string
		log      string
		accepted int
		lost     int
		err      string
	}{
		{name: "plain", log: good + good, accepted: 2},
		{name: "torn tail", log: good + `{"session_id":"s","se`, accepted: 1, lost: 1},
		{name: "torn line then more", log: good + `{"session_id":"s","raw":[` + "\n" + good, accepted: 2, lost: 1},
		{name: "torn before any session is no loss", log: `{"session_id":"s","raw":[` + "\n" + good, accepted: 1},
		{name: "no session", log: `{"seq":1}` + "\n", err: "log.jsonl: no envelopes found"},
		{name: "empty", log: "", err: "log.jsonl: no envelopes found"},
		{name: "bad line", log: good + "nope\n", err: "log.jsonl: line 2: invalid JSONL envelope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accepted, lost := 0, 0
			err := ReadLog(strings.NewReader(tt.log), "log.jsonl", func(f *Frame, line int) bool {
				if f.SessionID == "" {
					return false
				}
				accepted++
				return true
			}, func() { lost++ })
			if (err == nil) != (tt.err == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if err == nil && (accepted != tt.accepted || lost != tt.lost) {
				t.Errorf("accepted %d lost %d, want %d %d", accepted, lost, tt.accepted, tt.lost)
			}
		})
	}
}

func TestInputOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := (Input{Path: dir, Name: "logs"}).Open(nil); err == nil || err.Error() != "logs: is a directory" {
		t.Errorf("directory: %v", err)
	}
	if _, err := (Input{Path: filepath.Join(dir, "nope"), Name: "nope"}).Open(nil); err == nil || !strings.HasPrefix(err.Error(), "nope: ") {
		t.Errorf("missing: %v", err)
	}
	p := filepath.Join(dir, "a.jsonl")
	os.WriteFile(p, []byte("x"), 0o644)
	f, err := (Input{Path: p, Name: p}).Open(nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Count sees every byte an input's reader gives, file or standard input,
// and reading again counts again.
func TestInputCount(t *testing.T) {
	log := `{"session_id":"s","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
	p := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		in    Input
		reads int
	}{
		{"file", Input{Path: p, Name: p}, 1},
		{"file twice", Input{Path: p, Name: p}, 2},
		{"stdin", Input{Name: "stdin", Stdin: true}, 1},
	}
	for _, tt := range tests {
		var n atomic.Int64
		tt.in.Count = &n
		for range tt.reads {
			err := tt.in.Read(strings.NewReader(log), nil, func(*Frame, int) bool { return true }, func() {})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		if want := int64(tt.reads * len(log)); n.Load() != want {
			t.Errorf("%s: counted %d bytes, want %d", tt.name, n.Load(), want)
		}
	}
}
