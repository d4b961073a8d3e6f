//go:build e2e

package mock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/tidwall/gjson"
)

const requireEnv = "MCPSNOOP_E2E_REQUIRE"

// need is a prerequisite of an e2e test: missing, the test skips, or
// fails under MCPSNOOP_E2E_REQUIRE=1 (as CI runs it).
func need(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s (%s=1: a missing prerequisite fails the test)", what, requireEnv)
	}
	t.Skip(what)
}

// The TypeScript SDK's client (MCPSNOOP_E2E_TS_SDK: a folder holding
// node_modules/@modelcontextprotocol/sdk) plays the recorded session
// against the mcpsnoop binary's `mock`: every result it reads is the
// recorded one byte for byte (as JSON.stringify writes what arrived, which
// is how the TypeScript server that was recorded wrote it), the command
// exits 0 under --fail-on-unmatched, and its log checks clean.
func TestE2ETSClient(t *testing.T) {
	sdk := os.Getenv("MCPSNOOP_E2E_TS_SDK")
	need(t, "MCPSNOOP_E2E_TS_SDK is not set", sdk != "")
	_, err := os.Stat(filepath.Join(sdk, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	need(t, "MCPSNOOP_E2E_TS_SDK holds no @modelcontextprotocol/sdk: "+sdk, err == nil)
	node, err := exec.LookPath("node")
	need(t, "node is not installed", err == nil)
	bin := testbin.Build(t, "../../cmd/mcpsnoop")
	trace := filepath.Join(t.TempDir(), "mock.jsonl")
	cmd := exec.Command(node, "testdata/tsclient/client.mjs", "--", bin, "mock", "--fail-on-unmatched", "--trace-file", trace, everything)
	cmd.Env = append(os.Environ(), "MCPSNOOP_TS_SDK="+sdk)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TS client: %v\n%s\n%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "0 went unmatched") {
		t.Errorf("the mock's summary:\n%s", stderr.String())
	}
	rec := load(t, everything)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result *string         `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		if line.Result == nil {
			t.Errorf("%s %s: error %s", line.Method, line.Params, line.Error)
			continue
		}
		params := line.Params
		if string(params) == "null" {
			params = nil
		}
		want := gjson.GetBytes(recordedFor(t, rec, line.Method, params), "result").Raw
		if *line.Result != want {
			t.Errorf("%s %s: result\n%s\nis not the recorded one:\n%s", line.Method, params, *line.Result, want)
		}
		n++
	}
	if n != 11 {
		t.Errorf("%d results compared, want the session's 11:\n%s", n, out)
	}
	check := exec.Command(bin, "check", trace)
	if b, err := check.CombinedOutput(); err != nil || !strings.Contains(string(b), "check passed") {
		t.Errorf("check of the mock's log: %v\n%s", err, b)
	}
}
