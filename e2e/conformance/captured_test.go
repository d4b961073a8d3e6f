package conformance

// The logs under fixtures/captured/conformance were captured through
// `mcpsnoop http` while the official conformance suite and the Go SDK's
// conformance peers ran (docs/guides/conformance.md says how). Each is
// checked here, without the e2e tag, with the arguments in its .args, and
// what check says and its exit code are held to its .expected (-update
// rewrites them): a rule change that changes a verdict on this real
// traffic shows as a diff of a committed file.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

const capturedDir = "../../fixtures/captured/conformance"

func TestCapturedVerdicts(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join(capturedDir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 {
		t.Fatalf("no captured logs in %s", capturedDir)
	}
	mcpsnoop := testbin.Build(t, "../../cmd/mcpsnoop")
	for _, log := range logs {
		name := strings.TrimSuffix(filepath.Base(log), ".jsonl")
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(capturedDir, name)
			argText, err := os.ReadFile(base + ".args")
			if err != nil {
				t.Fatalf("%v: every captured log says how it is checked", err)
			}
			args := append([]string{"check"}, strings.Fields(string(argText))...)
			args = append(args, name+".jsonl")
			got := runCheck(t, mcpsnoop, args)
			expected := base + ".expected"
			if *update {
				if err := os.WriteFile(expected, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(expected)
			if err != nil {
				t.Fatalf("%v (go test ./e2e/conformance/ -run TestCapturedVerdicts -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("mcpsnoop %s:\n%s\nwant (%s):\n%s", strings.Join(args, " "), got, expected, want)
			}
		})
	}
}

// runCheck runs mcpsnoop with args in the fixtures' folder, with a state
// directory of its own, and returns the command, what it printed and its
// exit code as .expected holds them.
func runCheck(t *testing.T, mcpsnoop string, args []string) string {
	t.Helper()
	cmd := exec.Command(mcpsnoop, args...)
	cmd.Dir = capturedDir
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+t.TempDir(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	if code == 2 {
		t.Fatalf("mcpsnoop %s could not check:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	var b strings.Builder
	b.WriteString("$ mcpsnoop " + strings.Join(args, " ") + "\n--- stdout\n")
	b.WriteString(stdout.String())
	b.WriteString("--- stderr\n")
	b.WriteString(stderr.String())
	b.WriteString("--- exit " + strconv.Itoa(code) + "\n")
	return b.String()
}
