// Package diff compares two recorded sessions of an MCP server: the tools
// each one advertised and the tool calls both made (check.md section 9).
// It works on data the checker already rebuilt and does no I/O besides
// writing its text report.
package diff

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Call is one tools/call of a session, reduced to what diff compares.
type Call struct {
	Index       int    // position among the session's calls, in request order
	Tool        string // params.name
	Args        string // canonical JSON of params.arguments; "{}" when absent
	Status      string // export status: ok, pending, error, ...
	Duration    time.Duration
	HasDuration bool
}

// Side is one session as diff sees it.
type Side struct {
	SessionID string
	Tools     []tooldef.Tool // the tool set rebuilt from every tools/list
	Calls     []Call         // tools/call calls, in any order
}

// Options say which duration shifts are worth reporting.
type Options struct {
	// Threshold is the smallest absolute change reported.
	Threshold time.Duration
	// Ratio is the smallest longer/shorter ratio reported (at least 1).
	Ratio float64
}

// DefaultOptions are the command's defaults: at least 100 ms and 2x.
var DefaultOptions = Options{Threshold: 100 * time.Millisecond, Ratio: 2}

// StatusChange is a call whose status differs between the two sessions.
type StatusChange struct {
	Tool, Args    string
	Before, After string
}

// Regression reports whether the call got worse: its status rank rose.
func (c StatusChange) Regression() bool { return statusRank(c.After) > statusRank(c.Before) }

// statusRank orders statuses by how bad they are: a failure is worse than a
// call that never got a usable answer, which is worse than anything else.
func statusRank(s string) int {
	switch s {
	case "error":
		return 2
	case "pending", "call_cancelled", "late_result":
		return 1
	}
	return 0
}

// DurationChange is a call that became notably slower or faster.
type DurationChange struct {
	Tool, Args    string
	Before, After time.Duration
}

// Slower reports whether the call took longer after than before.
func (c DurationChange) Slower() bool { return c.After > c.Before }

// Result is everything that differs, in report order.
type Result struct {
	Before, After string // session ids
	// Tools are the definition changes, as drift lists them: kinds in
	// tooldef.DriftKinds order, tool names sorted within a kind.
	Tools     []tooldef.DriftEntry
	Statuses  []StatusChange
	Durations []DurationChange
}

// Empty reports whether nothing differs.
func (r *Result) Empty() bool {
	return len(r.Tools) == 0 && len(r.Statuses) == 0 && len(r.Durations) == 0
}

// Regressed reports whether anything got worse: a tool removed or a
// definition changed (icons aside), a call whose status got worse, or a
// call that got slower. Added tools, icon changes, improvements and
// speed-ups never count.
func (r *Result) Regressed() bool {
	for _, t := range r.Tools {
		if t.Kind != tooldef.DriftAdded && t.Kind != tooldef.DriftIcons {
			return true
		}
	}
	for _, s := range r.Statuses {
		if s.Regression() {
			return true
		}
	}
	for _, d := range r.Durations {
		if d.Slower() {
			return true
		}
	}
	return false
}

// Compare lists how after differs from before. Tools are compared exactly
// as drift is (every kind, nothing skipped). Calls are matched by
// signature, the tool name plus its canonical arguments: the i-th call of a
// signature before is paired with the i-th call of it after, up to the
// shorter count, so calls that only one side made are not reported.
func Compare(before, after Side, o Options) Result {
	r := Result{Before: before.SessionID, After: after.SessionID}
	r.Tools, _ = tooldef.Diff(before.Tools, after.Tools, 2)
	b, a := bySignature(before.Calls), bySignature(after.Calls)
	sigs := make([]signature, 0, len(b))
	for sig := range b {
		if _, ok := a[sig]; ok {
			sigs = append(sigs, sig)
		}
	}
	slices.SortFunc(sigs, func(x, y signature) int {
		return cmp.Or(strings.Compare(x.tool, y.tool), strings.Compare(x.args, y.args))
	})
	for _, sig := range sigs {
		bc, ac := b[sig], a[sig]
		for i := range min(len(bc), len(ac)) {
			x, y := bc[i], ac[i]
			if x.Status != y.Status {
				r.Statuses = append(r.Statuses, StatusChange{Tool: sig.tool, Args: sig.args, Before: x.Status, After: y.Status})
			}
			if x.HasDuration && y.HasDuration && notable(x.Duration, y.Duration, o) {
				r.Durations = append(r.Durations, DurationChange{Tool: sig.tool, Args: sig.args, Before: x.Duration, After: y.Duration})
			}
		}
	}
	return r
}

type signature struct{ tool, args string }

// bySignature groups calls by signature, each group in request order.
func bySignature(calls []Call) map[signature][]Call {
	sorted := slices.Clone(calls)
	slices.SortStableFunc(sorted, func(x, y Call) int { return cmp.Compare(x.Index, y.Index) })
	m := map[signature][]Call{}
	for _, c := range sorted {
		sig := signature{c.Tool, c.Args}
		m[sig] = append(m[sig], c)
	}
	return m
}

// notable reports whether a change from before to after is worth a line:
// not zero, at least the threshold, and at least the ratio between the
// longer and the shorter (from zero, any change is).
func notable(before, after time.Duration, o Options) bool {
	longer, shorter := max(before, after), min(before, after)
	delta := longer - shorter
	if delta == 0 || delta < o.Threshold {
		return false
	}
	if shorter <= 0 {
		return true
	}
	return float64(longer)/float64(shorter) >= o.Ratio
}

// WriteText prints the result in the format scripts read (check.md
// section 9): a header, then "no differences found" or the tools, calls
// and durations sections that have something in them. Under a changed
// tool's line, indented further, what changed (tooldef.DriftEntry.Detail).
func (r *Result) WriteText(w io.Writer) error {
	var sb strings.Builder
	// Ids, tool names and arguments come from the logs: each is escaped
	// to one safe line (termsafe), so no value can start a line of its own.
	fmt.Fprintf(&sb, "mcpsnoop diff %s -> %s\n", line(r.Before), line(r.After))
	if r.Empty() {
		sb.WriteString("no differences found\n")
	}
	if len(r.Tools) > 0 {
		sb.WriteString("tools:\n")
		for _, t := range r.Tools {
			fmt.Fprintf(&sb, "  %s: %s\n", t.Kind.Label(), line(t.Tool))
			if d := t.Detail(); d != "" {
				// what changed: old → new, the hints, the schema's paths
				fmt.Fprintf(&sb, "    %s\n", line(d))
			}
		}
	}
	if len(r.Statuses) > 0 {
		sb.WriteString("calls:\n")
		for _, s := range r.Statuses {
			fmt.Fprintf(&sb, "  status changed: %s %s %s -> %s\n", line(s.Tool), line(s.Args), s.Before, s.After)
		}
	}
	if len(r.Durations) > 0 {
		sb.WriteString("durations:\n")
		for _, d := range r.Durations {
			word := "faster"
			if d.Slower() {
				word = "slower"
			}
			fmt.Fprintf(&sb, "  %s: %s %s %s -> %s\n", word, line(d.Tool), line(d.Args), d.Before, d.After)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// line makes text from a log one safe line for a terminal.
func line(s string) string { return termsafe.Clean(s, false) }
