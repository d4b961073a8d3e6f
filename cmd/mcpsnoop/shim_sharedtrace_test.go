//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Four shims given one --trace-file record real SDK sessions at once, each
// with calls in flight together whose results are 150 KB and 1.5 MB (more
// than a write piece, so a frame was written in several calls and the
// shims' pieces interleaved): every line of the shared file is a whole
// frame, each session's frames are all there, and check reads the file and
// passes.
func TestShimsShareATraceFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	bins := buildShimBinaries(t)
	trace := filepath.Join(t.TempDir(), "shared.jsonl")
	const (
		shims   = 4
		callers = 4 // calls in flight at once in each session
		calls   = 6 // each, of the sizes in turn
	)
	sizes := []int{150_000, 1_500_000}
	ctx := withTimeout(t)
	var wg sync.WaitGroup
	errs := make(chan error, shims*callers)
	for i := range shims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bins.shim, "--trace-file", trace, "--label", fmt.Sprintf("shim%d", i), "--", bins.server)
			cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+os.Getenv("MCPSNOOP_HOME"))
			client := mcp.NewClient(&mcp.Implementation{Name: "sharer", Version: "1.0.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				errs <- fmt.Errorf("shim %d: connect: %v", i, err)
				return
			}
			defer cs.Close()
			var callWG sync.WaitGroup
			for range callers {
				callWG.Add(1)
				go func() {
					defer callWG.Done()
					for n := range calls {
						size := sizes[n%len(sizes)]
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"size": size}})
						if err != nil {
							errs <- fmt.Errorf("shim %d: call: %v", i, err)
							return
						}
						if txt, ok := res.Content[0].(*mcp.TextContent); !ok || len(txt.Text) != size {
							errs <- fmt.Errorf("shim %d: a result of the wrong size", i)
							return
						}
					}
				}()
			}
			callWG.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// Every line is one frame as a shim wrote it, whole.
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	big := map[string]int{}
	line, torn := 0, 0
	for sc.Scan() {
		line++
		var fr struct {
			SessionID string          `json:"session_id"`
			Raw       json.RawMessage `json:"raw"`
		}
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			torn++
			if torn <= 3 {
				t.Errorf("line %d is not one frame: %v (%d bytes)", line, err, len(sc.Bytes()))
			}
			continue
		}
		if len(fr.Raw) > sizes[0] {
			big[fr.SessionID]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if torn > 0 {
		t.Fatalf("%d of %d lines are torn or interleaved", torn, line)
	}
	if len(big) != shims {
		t.Fatalf("big results of %d sessions, want %d: %v", len(big), shims, big)
	}
	for sid, n := range big {
		if n != callers*calls {
			t.Errorf("session %s: %d big results, want %d", sid, n, callers*calls)
		}
	}
	if code, out := checkLog(t, trace); code != 0 || strings.Count("\n"+out, "\nsession ") != shims {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}
