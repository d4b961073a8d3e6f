//go:build e2e && unix

package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// failOn is the gate our verdict is: every signal that can say a peer
// broke the protocol, schema validation included.
const failOn = "error,invalid,warn,mismatch,pending,wire"

// ours is our verdict on one scenario's recording.
type ours struct {
	verdict  Verdict
	findings string // the gated findings, summed up
	lateGET  bool   // failed on the answers to a GET after the DELETE alone (lateget.go), taken for a pass
}

// checkAll runs `mcpsnoop check --blame side` on each log, two at a time.
func (h *harness) checkAll(t *testing.T, side string, logs []string) []ours {
	t.Helper()
	out := make([]ours, len(logs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for i, log := range logs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			var err error
			if out[i], err = h.check(side, log); err != nil {
				errorf(t, "%v", err)
			}
		}()
	}
	wg.Wait()
	return out
}

// check runs `mcpsnoop check --fail-on failOn --blame side` on one log:
// exit 0 is a pass, 1 a fail, anything else an error of the harness.
func (h *harness) check(side, log string) (ours, error) {
	report := strings.TrimSuffix(log, ".jsonl") + ".check.json"
	cmd := exec.Command(h.mcpsnoop, "check", "--fail-on", failOn, "--blame", side, "--json", report, log)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+h.home)
	cmd.Dir = h.dir
	text, err := cmd.CombinedOutput()
	os.WriteFile(strings.TrimSuffix(log, ".jsonl")+".check.txt", text, 0o644)
	o := ours{verdict: Pass}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		o.verdict = Fail
	default:
		return o, fmt.Errorf("mcpsnoop check %s: %v\n%s", log, err, text)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return o, err
	}
	var lines []int
	if o.findings, lines, err = gatedFindings(data); err != nil {
		return o, fmt.Errorf("%s: %w", report, err)
	}
	if o.verdict == Fail {
		recording, err := os.ReadFile(log)
		if err != nil {
			return o, err
		}
		if o.lateGET, err = LateGETOnly(recording, lines); err != nil {
			return o, fmt.Errorf("%s: %w", log, err)
		}
		if o.lateGET {
			o.verdict = Pass
		}
	}
	return o, nil
}

// httpStatus finds the status in a transport failure's message, rpcCode
// the JSON-RPC error code in a failed call's.
var (
	httpStatus = regexp.MustCompile(`HTTP (\d{3})`)
	rpcCode    = regexp.MustCompile(`\(code (-?\d+)\)`)
)

// gatedFindings sums up the findings of a check --json report that fail
// the gate: signal/rule for the rules' signals, the kind for the others
// (a transport failure with its status), each with how many there were,
// in a stable order; and the log lines they are on.
func gatedFindings(report []byte) (string, []int, error) {
	var r struct {
		Findings []struct {
			Signal  string `json:"signal"`
			Level   string `json:"level"`
			Kind    string `json:"kind"`
			Method  string `json:"method"`
			Tool    string `json:"tool"`
			Message string `json:"message"`
			Line    int    `json:"line"`
			Rules   []struct {
				ID string `json:"id"`
			} `json:"rules"`
			Wire *struct {
				Definition string `json:"definition"`
			} `json:"wire"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		return "", nil, err
	}
	counts := map[string]int{}
	var lines []int
	for _, f := range r.Findings {
		if f.Level != "error" {
			continue
		}
		lines = append(lines, f.Line)
		key := f.Signal
		switch {
		case len(f.Rules) > 0:
			ids := make([]string, len(f.Rules))
			for i, rule := range f.Rules {
				ids[i] = rule.ID
			}
			key += "/" + strings.Join(ids, "+")
		case f.Wire != nil:
			key += "/" + f.Wire.Definition
		case strings.Contains(f.Kind, "HTTP <status>"):
			if m := httpStatus.FindStringSubmatch(f.Message); m != nil {
				key += "/HTTP " + m[1]
			}
		case strings.Contains(f.Kind, "ended in an error"):
			key += "/" + strings.TrimSpace(f.Method+" "+f.Tool)
			if m := rpcCode.FindStringSubmatch(f.Message); m != nil {
				key += " " + m[1]
			} else if strings.Contains(f.Message, "isError") {
				key += " isError"
			}
		case f.Kind != "":
			key += "/" + f.Kind
		}
		counts[key]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	counted := make([]string, len(keys))
	for i, k := range keys {
		counted[i] = k
		if counts[k] > 1 {
			counted[i] = fmt.Sprintf("%s x%d", k, counts[k])
		}
	}
	return strings.Join(counted, "; "), lines, nil
}

// row is the table's line for one scenario.
func row(t *testing.T, version, side, peer string, r Result, o ours) Row {
	if o.lateGET {
		t.Logf("%s %s %s %s: failed only on the answer to a GET sent after the session's DELETE (%s): taken for a pass, as a race of the suite's client (lateget.go)",
			version, side, peer, r.Scenario, o.findings)
		o.findings = ""
	}
	return Row{
		Suite: version, Side: side, Peer: peer, Scenario: r.Scenario,
		SuiteVerdict: r.Verdict(), OurVerdict: o.verdict,
		SuiteFailed: strings.Join(r.Objections(), ","), OurFindings: o.findings,
	}
}
