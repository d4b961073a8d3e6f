package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Verdict is a pass or a fail, the suite's or ours.
type Verdict string

const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
)

// Check is one check of a scenario, as the suite writes it to checks.json.
type Check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// Result is what the suite said about one scenario: when it began (to the
// millisecond, as the suite names the scenario's output folder), when it
// was done (its checks.json was written: to the nanosecond), and its
// checks. Missing is set when the suite made the folder but wrote no
// checks.json, which it does when the scenario itself threw; End is then
// Start.
type Result struct {
	Scenario string
	Start    time.Time
	End      time.Time
	Checks   []Check
	Missing  bool
}

// Verdict is the suite's verdict on the scenario, as its summary and exit
// code give it: a FAILURE fails it, and so does a scenario that left no
// checks. A WARNING does not: the suite gives one for a SHOULD it found
// unmet (no retry field on an SSE stream) or a precondition it could not
// set up (no session id from a stateless server), and fails no run on it.
func (r Result) Verdict() Verdict {
	if r.Missing {
		return Fail
	}
	for _, c := range r.Checks {
		if c.Status == "FAILURE" {
			return Fail
		}
	}
	return Pass
}

// Objections lists the ids of the checks that failed the scenario and,
// marked "warning:", of those that warned, for the table and the test's
// messages.
func (r Result) Objections() []string {
	if r.Missing {
		return []string{"(no checks.json)"}
	}
	var ids, warned []string
	for _, c := range r.Checks {
		switch c.Status {
		case "FAILURE":
			ids = append(ids, c.ID)
		case "WARNING":
			warned = append(warned, "warning:"+c.ID)
		}
	}
	return append(ids, warned...)
}

// folderStamp is the suffix the suite gives a scenario's output folder:
// the moment it began, new Date().toISOString() with ':' and '.' as '-'.
var folderStamp = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$`)

// ReadResults reads the scenarios the suite wrote under dir (its
// --output-dir): one folder per scenario, named prefix + scenario + "-" +
// the time it began (a client scenario named "auth/x" is a folder x in a
// folder auth), each with a checks.json. prefix is "server-" for the
// server command's output, "" for the client command's. The results come
// in the order the scenarios began; two that began in the same
// millisecond come in the order the suite ran them (order, the scenario
// names as RunOrder reads them from its output; nil when it does not
// matter).
func ReadResults(dir, prefix string, order []string) ([]Result, error) {
	var results []Result
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || path == dir {
			return nil
		}
		m := folderStamp.FindStringSubmatch(d.Name())
		if m == nil {
			return nil // a folder of scenario names, such as auth/
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.ToSlash(rel), m[0])
		if !strings.HasPrefix(name, prefix) {
			return fmt.Errorf("%s: a scenario folder without the prefix %q", path, prefix)
		}
		r := Result{Scenario: strings.TrimPrefix(name, prefix)}
		stamp := m[1] + "T" + m[2] + ":" + m[3] + ":" + m[4] + "." + m[5] + "Z"
		if r.Start, err = time.Parse(time.RFC3339Nano, stamp); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		checks := filepath.Join(path, "checks.json")
		data, err := os.ReadFile(checks)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.Missing, r.End = true, r.Start
		case err != nil:
			return err
		default:
			if err := json.Unmarshal(data, &r.Checks); err != nil {
				return fmt.Errorf("%s: %w", checks, err)
			}
			info, err := os.Stat(checks)
			if err != nil {
				return err
			}
			r.End = info.ModTime()
		}
		results = append(results, r)
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range results {
		if seen[r.Scenario] {
			return nil, fmt.Errorf("%s: scenario %s ran twice; give each run an output folder of its own", dir, r.Scenario)
		}
		seen[r.Scenario] = true
	}
	rank := map[string]int{}
	for i, name := range order {
		rank[name] = i + 1
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return rank[a.Scenario] < rank[b.Scenario]
	})
	return results, nil
}

// runningLine is how the suite's server command announces each scenario.
var runningLine = regexp.MustCompile(`(?m)^=== Running scenario: (\S+) ===$`)

// RunOrder reads, from what the suite's server command printed, the order
// in which it ran its scenarios.
func RunOrder(output []byte) []string {
	var order []string
	for _, m := range runningLine.FindAllSubmatch(output, -1) {
		order = append(order, string(m[1]))
	}
	return order
}
