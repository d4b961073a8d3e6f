// Package sessions finds session logs for people and scripts: it lists the
// sessions of the state directory (or of given folders) with what each one
// holds, and resolves the word a user types for a session (an id, a label,
// the start of an id) to its log. Counting calls and errors takes the
// checker's engine, which capture must not import, so this sits above both.
package sessions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Entry is one session of a listing.
type Entry struct {
	ID        string    `json:"session_id"`
	Label     string    `json:"server_label"`
	Transport string    `json:"transport"`
	Start     time.Time `json:"start"` // the first frame's time
	Last      time.Time `json:"last"`  // the time of the frame read last
	Frames    int       `json:"frames"`
	Calls     int       `json:"calls"`
	Errors    int       `json:"errors"`
	RunIDs    []string  `json:"run_ids"`
	Path      string    `json:"path"`
	Line      int       `json:"line"` // the log line the session starts on
}

// Logs lists the session logs directly inside dir: regular, non-empty
// *.jsonl files, sorted by name. A capture that never started leaves an
// empty log, which is no session. A folder that does not exist holds none.
func Logs(dir string) ([]capture.Input, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []capture.Input
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		out = append(out, capture.Input{Path: p, Name: p})
	}
	return out, nil
}

// List reads each log through the checker (no gate, no baseline) and
// returns a row per session, newest first. A log that cannot be read is
// left out, its error in problems; the others are still listed.
func List(inputs []capture.Input) (entries []Entry, problems []error) {
	for _, in := range inputs {
		eng := checker.New(checker.Config{})
		err := in.Read(nil, nil, func(f *capture.Frame, line int) bool {
			return eng.Ingest(f, checker.Position{Path: in.Path, Name: in.Name, Line: line})
		}, eng.TornTail)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, s := range eng.Report().Sessions {
			entries = append(entries, Entry{
				ID: s.ID, Label: s.Label, Transport: s.Transport,
				Start: s.First, Last: s.Last,
				Frames: s.Traffic.Frames, Calls: s.Calls, Errors: s.Counters.Errors,
				RunIDs: nonNil(s.RunIDs), Path: in.Name, Line: s.Source.FirstLine,
			})
		}
	}
	slices.SortStableFunc(entries, func(a, b Entry) int {
		if c := b.Start.Compare(a.Start); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return entries, problems
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Input is the log at path, named by its path.
func Input(path string) capture.Input { return capture.Input{Path: path, Name: path} }
