package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// roleEnv names the role this test binary plays when a test starts it.
const roleEnv = "MCPSNOOP_TEST_ROLE"

// The measured check's settings.
const (
	inputsEnv = "MCPSNOOP_TEST_INPUTS" // JSON list of paths; "-" for stdin
	jobsEnv   = "MCPSNOOP_TEST_JOBS"   // Options.Workers
	wireEnv   = "MCPSNOOP_TEST_WIRE"   // "1": validate frames against the schema
	waitEnv   = "MCPSNOOP_TEST_WAIT"   // "1": start once a line comes on stdin (limits set)
)

// checkResult is what the measured check prints.
type checkResult struct {
	PeakRSS  int64            `json:"peak_rss"`
	Workers  int              `json:"workers"`
	Sessions int              `json:"sessions"`
	Counters checker.Counters `json:"counters"`
	Findings []string         `json:"findings"`
	Err      string           `json:"err,omitempty"`
}

func runRole(role string) int {
	if role != "check" {
		fmt.Fprintf(os.Stderr, "unknown test role %q\n", role)
		return 2
	}
	if os.Getenv(waitEnv) == "1" {
		var start string
		fmt.Fscanln(os.Stdin, &start)
	}
	var paths []string
	if err := json.Unmarshal([]byte(os.Getenv(inputsEnv)), &paths); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var inputs []capture.Input
	for _, p := range paths {
		inputs = append(inputs, capture.Input{Path: p, Name: p, Stdin: p == "-"})
	}
	jobs, _ := strconv.Atoi(os.Getenv(jobsEnv))
	var res checkResult
	res.Workers = Workers(inputs, jobs)
	eng, err := Check(checker.Config{Wire: os.Getenv(wireEnv) == "1"}, inputs, Options{Stdin: os.Stdin, Workers: jobs})
	if err != nil {
		res.Err = err.Error()
	} else {
		rep := eng.Report()
		res.Sessions = len(rep.Sessions)
		for _, s := range rep.Sessions {
			c := s.Counters
			res.Counters.Pending += c.Pending
			res.Counters.Untracked += c.Untracked
			res.Counters.Warnings += c.Warnings
			res.Counters.MissingFrames += c.MissingFrames
		}
		for i, f := range rep.Findings {
			if i == 5 {
				res.Findings = append(res.Findings, fmt.Sprintf("... %d in all", len(rep.Findings)))
				break
			}
			res.Findings = append(res.Findings, f.Message)
		}
	}
	res.PeakRSS, _ = peakRSS()
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// peakRSS is this process's VmHWM, in bytes (ru_maxrss would carry the
// high-water mark of the process that started it).
func peakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM")
}
