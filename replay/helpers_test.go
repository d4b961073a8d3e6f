package replay

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/diff"
	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The programs the tests run are built once per test process (testbin):
// mcpsnoop (the shim every stdio replay goes through) and the test server
// in its two builds; when every test runs, in the background from the
// start.
func TestMain(m *testing.M) {
	flag.Parse()
	if testbin.AllTests() {
		for _, p := range programList {
			testbin.Start(p.pkg, p.flags...)
		}
	}
	code := testbin.Run(m)
	if benchRecording.dir != "" {
		os.RemoveAll(benchRecording.dir)
	}
	os.Exit(code)
}

// programs builds the shim and both server builds, or skips in -short.
func programs(t testing.TB) (shim, v1, v2 string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	var paths [3]string
	for i, p := range programList {
		paths[i] = testbin.Build(t, p.pkg, p.flags...)
	}
	return paths[0], paths[1], paths[2]
}

// programList is what programs builds: the shim, the test server as is
// and changed.
var programList = [3]struct {
	pkg   string
	flags []string
}{
	{"../cmd/mcpsnoop", nil},
	{"./testdata/replayserver", nil},
	{"./testdata/replayserver", []string{"-ldflags=-X main.variant=" + testserver.V2}},
}

func withTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// record runs script with a real SDK client against server, through the
// mcpsnoop shim, and returns the log it wrote. version "" speaks the SDK's
// newest revision (2026-07-28).
func record(t *testing.T, server, version string, script func(context.Context, *testing.T, *mcp.ClientSession)) string {
	t.Helper()
	return recordWith(t, nil, server, version, script)
}

// recordWith is record with more shim flags (--redact-*).
func recordWith(t *testing.T, shimArgs []string, server, version string, script func(context.Context, *testing.T, *mcp.ClientSession)) string {
	t.Helper()
	shim, _, _ := programs(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "recording.jsonl")
	args := append([]string{"--trace-file", path, "--label", "replayserver"}, shimArgs...)
	cmd := exec.Command(shim, append(args, "--", server)...)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "recorder", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if strings.Contains(req.Params.Message, "Window") || strings.Contains(req.Params.Message, "seat") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seat": "window"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx := withTimeout(t)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	script(ctx, t, cs)
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// call makes one tool call and fails the test on a protocol error.
func call(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// everyTool lists the tools and calls most of them once.
func everyTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	call(ctx, t, cs, "echo", map[string]any{"text": "héllo <b>&</b>"})
	call(ctx, t, cs, "add", map[string]any{"a": 2, "b": 3})
	call(ctx, t, cs, "slow", map[string]any{"text": "x"})
	call(ctx, t, cs, "lookup", map[string]any{"key": "k1"})
	call(ctx, t, cs, "flaky", map[string]any{"text": "x"})
	call(ctx, t, cs, "stamp", map[string]any{"text": "x"})
	call(ctx, t, cs, "delete_item", map[string]any{"key": "k1"})
}

// load reads the first session of a log.
func load(t *testing.T, path string) *Recording {
	t.Helper()
	rec, err := Load(capture.Input{Path: path, Name: path}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// untimed judges no call slower: a test asserts nothing about how fast a
// loaded machine replays (benchmarks measure that). Where a test needs
// "slower" it uses diff's defaults against a server that sleeps a second.
var untimed = VerifyOptions{Durations: diff.Options{Threshold: time.Hour, Ratio: 2}}

// replay runs rec against t's command (the recorded one when nil) and
// verifies it with the default comparison, durations untimed.
func replay(t *testing.T, rec *Recording, command []string, o Options) (*Result, *Verification) {
	t.Helper()
	return replayJudged(t, rec, command, o, untimed)
}

// replayJudged is replay with vo's comparison.
func replayJudged(t *testing.T, rec *Recording, command []string, o Options, vo VerifyOptions) (*Result, *Verification) {
	t.Helper()
	shim, _, _ := programs(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	res, err := Run(withTimeout(t), rec, Target{Command: command, Shim: shim, Log: filepath.Join(t.TempDir(), "replay.jsonl")}, o)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(rec, res, vo)
	if err != nil {
		t.Fatal(err)
	}
	return res, v
}

// verdicts maps each verified call's name (or method) to its verdict.
func verdicts(v *Verification) map[string]CallVerdict {
	m := map[string]CallVerdict{}
	for _, c := range v.Calls {
		k := c.Name
		if k == "" {
			k = c.Method
		}
		m[k] = c
	}
	return m
}

// framesOf reads every frame of a log.
func framesOf(t *testing.T, path string) []capture.Frame {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capture.Frame
	if err := capture.ReadLog(f, path, func(fr *capture.Frame, _ int) bool {
		out = append(out, fr.Clone())
		return true
	}, func() {}); err != nil {
		t.Fatal(err)
	}
	return out
}
