package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// rawFrames returns the raw payloads of a realistic capture.
func rawFrames(tb testing.TB) [][]byte {
	tb.Helper()
	f, err := os.Open(benchLog())
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var raws [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var fr capture.Frame
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			tb.Fatal(err)
		}
		if len(fr.Raw) > 0 {
			raws = append(raws, fr.Raw)
		}
	}
	return raws
}

// BenchmarkAppendIndent measures the re-indenting of raw payloads, the
// export's hot spot, against encoding/json's Indent.
func BenchmarkAppendIndent(b *testing.B) {
	raws := rawFrames(b)
	total := 0
	for _, r := range raws {
		total += len(r)
	}
	b.Run("appendIndent", func(b *testing.B) {
		b.SetBytes(int64(total))
		var buf []byte
		for b.Loop() {
			for _, r := range raws {
				buf = appendIndent(buf[:0], r, 2)
			}
		}
	})
	b.Run("json.Indent", func(b *testing.B) {
		b.SetBytes(int64(total))
		var buf bytes.Buffer
		for b.Loop() {
			for _, r := range raws {
				buf.Reset()
				json.Indent(&buf, r, "    ", "  ")
			}
		}
	})
}

// benchLog is the capture the benchmarks read: $MCPSNOOP_BENCH_LOG (for
// example a few thousand lines of ../shared/bench/gen.py output), else a
// fixture.
func benchLog() string {
	if p := os.Getenv("MCPSNOOP_BENCH_LOG"); p != "" {
		return p
	}
	return "../fixtures/devtools-60calls.jsonl"
}

// BenchmarkExport runs the whole export of benchLog() to each format,
// output discarded.
func BenchmarkExport(b *testing.B) {
	in := capture.Input{Path: benchLog(), Name: benchLog()}
	info, err := os.Stat(in.Path)
	if err != nil {
		b.Fatal(err)
	}
	for name, f := range map[string]func() Format{"json": NewJSON, "text": NewText, "html": NewHTML} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(info.Size())
			for b.Loop() {
				x, err := Load(f(), []capture.Input{in}, nil, Options{TempDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if err := x.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
				x.Close()
			}
		})
	}
}
