package replay

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchCalls is how many calls the benchmarks make.
const benchCalls = 1000

// benchRecording is a recorded session of benchCalls echo calls (after
// the handshake and tools/list), made once.
var benchRecording struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// oneThousandCalls is the workload: tools/list, then benchCalls echoes.
func oneThousandCalls(ctx context.Context, cs *mcp.ClientSession) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return err
	}
	for range benchCalls {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
			return err
		}
	}
	return nil
}

func recording1000(b *testing.B) string {
	shim, v1, _ := programs(b)
	benchRecording.once.Do(func() {
		if benchRecording.dir, benchRecording.err = os.MkdirTemp("", "mcpsnoop-bench-"); benchRecording.err != nil {
			return
		}
		benchRecording.path = filepath.Join(benchRecording.dir, "recording.jsonl")
		cmd := exec.Command(shim, "--trace-file", benchRecording.path, "--label", "bench", "--", v1)
		cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+benchRecording.dir)
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			benchRecording.err = err
			return
		}
		if benchRecording.err = oneThousandCalls(ctx, cs); benchRecording.err == nil {
			benchRecording.err = cs.Close()
		}
	})
	if benchRecording.err != nil {
		b.Fatal(benchRecording.err)
	}
	return benchRecording.path
}

// BenchmarkVerify1000 is `mcpsnoop verify` of a 1,000-call recording
// against the same local stdio server: read the recording, start the
// server through the shim, replay every call, check the replay log,
// compare every answer. Compare its time with BenchmarkDirectClient1000
// (bench/verify.sh prints the ratio; the target is under 2x).
func BenchmarkVerify1000(b *testing.B) {
	path := recording1000(b)
	shim, _, _ := programs(b)
	home := b.TempDir()
	b.Setenv("MCPSNOOP_HOME", home)
	b.ResetTimer()
	for i := range b.N {
		rec, err := Load(capture.Input{Path: path, Name: path}, nil, "")
		if err != nil {
			b.Fatal(err)
		}
		res, err := Run(context.Background(), rec, Target{Shim: shim, Log: filepath.Join(home, "replay.jsonl")}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		v, err := Verify(rec, res, untimed)
		if err != nil {
			b.Fatal(err)
		}
		if v.Verified() != benchCalls+1 || v.Regressed() {
			b.Fatalf("iteration %d: verified %d, regressed %v", i, v.Verified(), v.Regressed())
		}
		b.StopTimer()
		os.Remove(filepath.Join(home, "replay.jsonl"))
		b.StartTimer()
	}
}

// BenchmarkDirectClient1000 is the baseline: a minimal Go SDK client
// starts the same server itself (no shim, no log) and makes the same
// calls.
func BenchmarkDirectClient1000(b *testing.B) {
	_, v1, _ := programs(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(v1)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		if err := oneThousandCalls(ctx, cs); err != nil {
			b.Fatal(err)
		}
		if err := cs.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
