// Package formattest runs an export.Format over fixture logs through the
// exporter (export.Load and Write) for the format subpackages' tests, and
// keeps their golden files. Records is an in-memory export.Records for
// tests that hand a format one session directly.
package formattest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"

	// The exports under test check their logs, as the mcpsnoop binary does.
	_ "github.com/mcpsnoop/mcpsnoop/checker/wire/schemacheck"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files")

// GeneratedAt is the fixed export time of every test run.
var GeneratedAt = time.Date(2026, 8, 2, 9, 0, 0, 0, time.UTC)

// Records is an in-memory export.Records.
type Records [][]byte

// Len is the number of slots.
func (r Records) Len() int { return len(r) }

// At returns slot i.
func (r Records) At(i int) ([]byte, error) {
	if i < 0 || i >= len(r) {
		return nil, fmt.Errorf("record %d out of range", i)
	}
	return r[i], nil
}

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
	// Report is a plain check of the same logs, for tests that compare the
	// output with what the engine found.
	Report *checker.Report
}

// Run exports the logs at paths (files, or directories whose *.jsonl files
// are read in name order) with f through the exporter itself (export.Load,
// then Write), with a tiny memory budget so that the spill files are used,
// and returns the output.
func Run(t testing.TB, f export.Format, paths ...string) Result {
	t.Helper()
	var inputs []capture.Input
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() {
			inputs = append(inputs, capture.Input{Path: p, Name: p})
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(m)
		for _, name := range m {
			inputs = append(inputs, capture.Input{Path: name, Name: name})
		}
	}
	x, err := export.Load(f, inputs, nil, export.Options{
		GeneratedAt: GeneratedAt, Version: "dev", TempDir: t.TempDir(), MemoryBudget: 512,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var w bytes.Buffer
	if err := x.Write(&w); err != nil {
		t.Fatal(err)
	}
	e := checker.New(checker.Config{})
	for _, in := range inputs {
		fh, err := os.Open(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		err = capture.ReadLog(fh, in.Name, func(fr *capture.Frame, line int) bool {
			e.Ingest(fr, checker.Position{Path: in.Path, Name: in.Name, Line: line})
			return true
		}, e.TornTail)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return Result{Output: w.Bytes(), Report: e.Report()}
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
