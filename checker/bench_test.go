package checker_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// benchLog returns the log BenchmarkCheck reads: $MCPSNOOP_BENCH_LOG, or a
// 10,000-call log written by ../shared/bench/gen.py (the realistic
// generator), or the bundled MRTR fixture when neither is available.
func benchLog(b *testing.B) string {
	if p := os.Getenv("MCPSNOOP_BENCH_LOG"); p != "" {
		return p
	}
	gen := filepath.Join("..", "..", "shared", "bench", "gen.py")
	if _, err := os.Stat(gen); err == nil {
		out := filepath.Join(b.TempDir(), "bench.jsonl")
		if err := exec.Command("python3", gen, "10000", out).Run(); err == nil {
			return out
		}
	}
	return filepath.Join("..", "fixtures", "mrtr.jsonl")
}

// BenchmarkCheck measures the reader and the engine together, the work of
// `mcpsnoop check` minus rendering. It reports MB/s through b.SetBytes.
func BenchmarkCheck(b *testing.B) { benchCheck(b, checker.Config{}) }

// BenchmarkCheckWire is BenchmarkCheck with every frame validated against
// its revision's JSON schema (check --fail-on ...,wire).
func BenchmarkCheckWire(b *testing.B) { benchCheck(b, checker.Config{Wire: true}) }

func benchCheck(b *testing.B, cfg checker.Config) {
	path := benchLog(b)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		eng := checker.New(cfg)
		r := capture.NewReader(f, path)
		for {
			fr, line, err := r.Next()
			if errors.Is(err, capture.ErrTornLine) {
				continue
			}
			if err == io.EOF || errors.Is(err, capture.ErrTornTail) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			eng.Ingest(&fr, checker.Position{Path: path, Name: path, Line: line})
		}
		f.Close()
		if rep := eng.Report(); len(rep.Sessions) == 0 {
			b.Fatal("no sessions")
		}
	}
}
