package capture

import (
	"fmt"
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
		{name: "bad line after a frame is lost, the read goes on", log: good + "nope\n" + good, accepted: 2, lost: 1},
		{name: "bad first line: no log", log: "nope\n" + good, err: "log.jsonl: line 1: invalid JSONL envelope"},
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

// A line that cannot be read, once the log has shown a frame, is handed to
// Unreadable with its line, and the read goes on: nothing a log can hold
// makes the frames after it unreadable. Among them a frame whose raw
// nests 10,000 deep (the envelope is one deeper than encoding/json takes),
// which captures once wrote.
func TestReadLogUnreadableLines(t *testing.T) {
	good := `{"session_id":"s","seq":1}`
	deep := `{"session_id":"s","seq":2,"raw":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}"
	bad := []struct{ name, line, why string }{
		{"too deep", deep, "exceeded max depth"},
		{"not JSON", "hello world", "invalid character 'h'"},
		{"an array", "[1,2]", "expected a JSON object, got an array"},
		{"a field of the wrong type", `{"session_id":"s","seq":"1"}`, "field seq must be an unsigned integer"},
		{"a mismatched bracket", `{"session_id":"s","raw":[}`, "invalid JSONL envelope"},
		{"a long line of junk", strings.Repeat("\x00junk", 40<<10), "invalid JSONL envelope"},
		{"two values, the second not an object", good + " 5", "expected a JSON object, got a number"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			log := good + "\n" + b.line + "\n" + good + "\n" + good + "\n"
			var lines []int
			var unreadable []string
			err := ReadLogHooks(strings.NewReader(log), "log.jsonl", func(f *Frame, line int) bool {
				lines = append(lines, line)
				return true
			}, ReadHooks{Lost: func() { t.Error("lost called") }, Unreadable: func(line int, err error) {
				unreadable = append(unreadable, fmt.Sprintf("%d %v", line, err))
			}})
			if err != nil {
				t.Fatal(err)
			}
			frames := []int{1, 3, 4}
			if b.name == "two values, the second not an object" {
				frames = []int{1, 2, 3, 4}
			}
			if fmt.Sprint(lines) != fmt.Sprint(frames) || len(unreadable) != 1 || !strings.HasPrefix(unreadable[0], "2 log.jsonl: line 2: ") || !strings.Contains(unreadable[0], b.why) {
				t.Errorf("frames on lines %v, unreadable %.200q", lines, unreadable)
			}
		})
	}
}
