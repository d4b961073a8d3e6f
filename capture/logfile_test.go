package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seekRecorder is a seekable output that records each call to Write.
type seekRecorder struct {
	calls [][]byte
}

func (r *seekRecorder) Write(p []byte) (int, error) {
	r.calls = append(r.calls, bytes.Clone(p))
	return len(p), nil
}

func (r *seekRecorder) Seek(int64, int) (int64, error) { return 0, nil }
func (r *seekRecorder) Close() error                   { return nil }

// plainRecorder records the calls too, but cannot seek (a pipe).
type plainRecorder struct{ seekRecorder }

func (r *plainRecorder) Seek(int64, int) (int64, error) { return 0, os.ErrInvalid }

// The log writer hands its output whole frames: every call to Write
// starts where a frame starts and ends with a newline. A frame longer than
// a write piece goes in one call of its own to a file (seekable), and in
// pieces of at most writePiece to anything else (a pipe read slowly must
// see each call end well within the close bound).
func TestLogSinkWritesWholeFrames(t *testing.T) {
	lines := []string{
		`{"n":1}`,
		`{"big":"` + strings.Repeat("x", 150_000) + `"}`,
		`{"n":2}`,
		`{"big":"` + strings.Repeat("y", 3*writePiece) + `"}`,
		`{"mid":"` + strings.Repeat("z", writePiece/2) + `"}`,
		`{"mid":"` + strings.Repeat("w", writePiece/2) + `"}`,
	}
	for _, tc := range []struct {
		name string
		out  interface {
			io.WriteCloser
			recorded() [][]byte
		}
		whole bool
	}{
		{"file", &seekRecorderOut{}, true},
		{"pipe", &plainRecorderOut{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewLogWriter(tc.out, LogOptions{SessionID: "s", Label: "l", Path: tc.name})
			for _, l := range lines {
				w.Add(ClientToServer, nil, nil, []byte(l), false)
			}
			if lost := w.Close(); lost != 0 {
				t.Fatalf("lost %d", lost)
			}
			calls := tc.out.recorded()
			var all []byte
			for i, c := range calls {
				all = append(all, c...)
				if tc.whole && (len(c) == 0 || c[len(c)-1] != '\n') {
					t.Errorf("call %d of %d (%d bytes) does not end a frame", i, len(calls), len(c))
				}
				if !tc.whole && len(c) > writePiece {
					t.Errorf("call %d holds %d bytes, more than a piece", i, len(c))
				}
			}
			frames, torn := readLog(t, all)
			if torn != 0 || len(frames) != len(lines) {
				t.Fatalf("%d frames, %d torn", len(frames), torn)
			}
		})
	}
}

type seekRecorderOut struct{ seekRecorder }

func (r *seekRecorderOut) recorded() [][]byte { return r.calls }

type plainRecorderOut struct{ plainRecorder }

func (r *plainRecorderOut) recorded() [][]byte { return r.calls }

// Four logs appending to one file at once, each through its own open of
// it, with frames of 150 KB (several write pieces): every line of the file
// is a whole frame, and each log's frames are all there, in order.
func TestLogFilesShareAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	const (
		logs   = 4
		frames = 60
	)
	var wg sync.WaitGroup
	for i := range logs {
		f, _, err := OpenLogFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w := NewLogWriter(f, LogOptions{SessionID: fmt.Sprintf("s%d", i), Label: "l", Path: path})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range frames {
				big := fmt.Sprintf(`{"log":%d,"n":%d,"pad":"%s"}`, i, n, strings.Repeat(string(rune('a'+i)), 150_000))
				w.Add(ClientToServer, nil, nil, []byte(big), false)
			}
			if lost := w.Close(); lost != 0 {
				t.Errorf("log %d lost %d", i, lost)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all, torn := readLog(t, data)
	if torn != 0 {
		t.Fatalf("%d torn or interleaved lines", torn)
	}
	seqs := map[string]uint64{}
	for _, fr := range all {
		if fr.Seq != seqs[fr.SessionID]+1 {
			t.Fatalf("session %s: seq %d after %d", fr.SessionID, fr.Seq, seqs[fr.SessionID])
		}
		seqs[fr.SessionID] = fr.Seq
	}
	if len(seqs) != logs {
		t.Fatalf("sessions %v", seqs)
	}
	for sid, last := range seqs {
		if last != frames {
			t.Errorf("session %s: %d frames, want %d", sid, last, frames)
		}
	}
}
