// Package formattest drives an export.Format the way the exporter does,
// in memory, so the format subpackages can be tested without the driver:
// the checker's one pass over the logs feeds Event and Call, and once the
// input is read Begin, Session (per session, in report order) and End
// write the output. It also keeps golden files.
package formattest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files")

// GeneratedAt is the fixed export time of every test run.
var GeneratedAt = time.Date(2026, 8, 2, 9, 0, 0, 0, time.UTC)

// Records is an in-memory export.Records.
type Records [][]byte

// Len is the number of slots.
func (r Records) Len() int { return len(r) }

// Each calls fn with every slot in order.
func (r Records) Each(fn func(i int, b []byte) error) error {
	for i, b := range r {
		if err := fn(i, b); err != nil {
			return err
		}
	}
	return nil
}

// Result is what Run produced.
type Result struct {
	Output []byte
	Report *checker.Report
}

// Run exports the logs at paths (files, or directories whose *.jsonl files
// are read in name order) with f and returns the output.
func Run(t testing.TB, f export.Format, paths ...string) Result {
	t.Helper()
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	calls := map[string]Records{}
	events := map[string]Records{}
	var failure error
	e := checker.New(checker.Config{
		KeepBodies: true,
		OnFrame: func(ev *checker.FrameEvent) {
			b, err := f.Event(ev)
			if err != nil && failure == nil {
				failure = err
			}
			if b != nil {
				events[ev.SessionID] = append(events[ev.SessionID], bytes.Clone(b))
			}
		},
		OnCall: func(r checker.CallRecord) {
			b, err := f.Call(&r)
			if err != nil && failure == nil {
				failure = err
			}
			rs := calls[r.SessionID]
			for len(rs) <= r.Index {
				rs = append(rs, nil)
			}
			rs[r.Index] = bytes.Clone(b)
			calls[r.SessionID] = rs
		},
	})
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		err = capture.ReadLog(fh, name, func(fr *capture.Frame, line int) bool {
			e.Ingest(fr, checker.Position{Name: name, Line: line})
			return true
		}, e.TornTail)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	rep := e.Report()
	if failure != nil {
		t.Fatal(failure)
	}
	out := &export.Output{GeneratedAt: GeneratedAt, Version: "dev", Sessions: len(rep.Sessions)}
	var w bytes.Buffer
	if err := f.Begin(&w, out); err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Sessions {
		s := &export.Session{Output: out, Report: sr, Calls: calls[sr.ID], Events: events[sr.ID]}
		if len(sr.RunIDs) > 0 {
			if run, ok := checker.FindRun(rep.Runs, sr.RunIDs[0]); ok {
				s.Run = &run
			}
		}
		if err := f.Session(&w, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.End(&w, out); err != nil {
		t.Fatal(err)
	}
	return Result{Output: w.Bytes(), Report: rep}
}

// Golden compares got with testdata/<name>, or rewrites it under -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update to accept it); got:\n%s", path, got)
	}
}
