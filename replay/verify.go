package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/diff"
)

// What a verified call came to. OutcomeTimeout is a call that got no
// answer within the call timeout; OutcomeFailed one that got none for
// another reason (the server exited or closed its stdout, the HTTP
// exchange failed, an event stream ended before the answer).
const (
	OutcomeSame        = "same"
	OutcomeChanged     = "changed"
	OutcomeErrorNow    = "error_now"
	OutcomeOKNow       = "ok_now"
	OutcomeTimeout     = "timeout"
	OutcomeFailed      = "failed"
	OutcomeNotOffered  = "not_offered"
	OutcomeNotReplayed = "not_replayed"
)

// VerifyOptions say how answers are compared.
type VerifyOptions struct {
	Comparer *Comparer
	// Durations say when a tool's median duration moved enough to be
	// reported slower or faster, as diff reports a call.
	Durations diff.Options
	// FailOnSlower makes a slower tool a regression. Without it slower
	// tools are reported and nothing fails on them: a busy machine can
	// make any call slow.
	FailOnSlower bool
}

// Verification is a replay compared with its recording, as plain data.
type Verification struct {
	Recording       string   `json:"recording"`
	RecordingPath   string   `json:"-"`
	SessionID       string   `json:"session_id"`
	Label           string   `json:"server_label"`
	ReplayLog       string   `json:"replay_log"`
	ReplaySessionID string   `json:"replay_session_id"`
	Target          string   `json:"target"`
	Revision        string   `json:"revision,omitempty"`
	Ignores         []string `json:"ignores"`
	IgnoreOrder     bool     `json:"ignore_order"`
	// ToolsCompared is set when both sides had a complete tool listing;
	// Tools lists how the replayed one differs, as diff lists it.
	ToolsCompared bool         `json:"tools_compared"`
	Tools         []ToolChange `json:"tools"`
	// FailOnSlower: a slower tool is a regression (--fail-on-slower).
	FailOnSlower bool `json:"fail_on_slower"`
	// Durations are the tools whose median duration got notably slower or
	// faster, in the order of their first call.
	Durations []ToolDuration `json:"durations"`
	// ListingLine is the recorded tools/list answer's line, where listing
	// findings point.
	ListingLine int           `json:"-"`
	Calls       []CallVerdict `json:"calls"`
	Stopped     string        `json:"stopped,omitempty"`
	Declined    []string      `json:"declined"`
	Notes       []string      `json:"notes"`
}

// ToolChange is one difference between the recorded and the replayed
// tool listing.
type ToolChange struct {
	Kind       string `json:"kind"`
	Label      string `json:"label"`
	Tool       string `json:"tool"`
	Regression bool   `json:"regression"`
}

// ToolDuration is a tool (a method and the name it operates on) whose
// calls got notably slower or faster: the median duration of its calls
// timed on both sides, recorded and replayed, judged by diff's rules.
type ToolDuration struct {
	Method string `json:"method"`
	Name   string `json:"name,omitempty"`
	// Calls is how many calls the medians are of.
	Calls    int     `json:"calls"`
	BeforeMS float64 `json:"before_ms"`
	AfterMS  float64 `json:"after_ms"`
	Slower   bool    `json:"slower"`
	Faster   bool    `json:"faster"`
	// Regression: slower, and FailOnSlower gates on it.
	Regression bool `json:"regression"`
}

// Subject names the tool in one line: method and name.
func (d *ToolDuration) Subject() string {
	if d.Name == "" {
		return d.Method
	}
	return d.Method + " " + d.Name
}

// CallVerdict is one recorded call, replayed and judged.
type CallVerdict struct {
	Line       int    `json:"line"` // the recorded request's line
	AnswerLine int    `json:"answer_line,omitempty"`
	Seq        uint64 `json:"seq"`
	Method     string `json:"method"`
	Name       string `json:"name,omitempty"`
	// Arguments are the recorded params.arguments, canonical ({} when none).
	Arguments string `json:"arguments,omitempty"`
	Outcome   string `json:"outcome"`
	// Reason says why a call was not replayed, or what went wrong with it.
	Reason       string   `json:"reason,omitempty"`
	Changes      []Change `json:"changes,omitempty"`
	ChangesTotal int      `json:"changes_total,omitempty"`
	// Before and After are the recorded and the replayed status (ok,
	// error, pending, ...), as diff compares them.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// BeforeMS and AfterMS are the durations, measured by the capture.
	BeforeMS *float64 `json:"before_ms,omitempty"`
	AfterMS  *float64 `json:"after_ms,omitempty"`
	// Slower and Faster: the call's tool got slower or faster (see
	// Verification.Durations); slower is a regression only with
	// FailOnSlower.
	Slower     bool   `json:"slower"`
	Faster     bool   `json:"faster"`
	Regression bool   `json:"regression"`
	ReplayID   string `json:"replay_id,omitempty"`
}

// Replayed reports whether the call was sent and compared.
func (c *CallVerdict) Replayed() bool {
	return c.Outcome != OutcomeNotReplayed && c.Outcome != OutcomeNotOffered
}

// Verified reports whether the call was judged: replayed, or found to be
// no longer offered.
func (c *CallVerdict) Verified() bool { return c.Outcome != OutcomeNotReplayed }

// Regressed reports whether anything got worse: by the rules of diff
// --exit-code (a tool removed or redefined, a status worse; a tool slower
// only with FailOnSlower), or an answer that changed, or a call no longer
// offered.
func (v *Verification) Regressed() bool {
	for _, t := range v.Tools {
		if t.Regression {
			return true
		}
	}
	for _, c := range v.Calls {
		if c.Regression {
			return true
		}
	}
	return false
}

// Verified is how many recorded calls were judged (replayed and compared,
// or no longer offered).
func (v *Verification) Verified() int {
	n := 0
	for _, c := range v.Calls {
		if c.Verified() {
			n++
		}
	}
	return n
}

// Count is how many calls came to outcome.
func (v *Verification) Count(outcome string) int {
	n := 0
	for _, c := range v.Calls {
		if c.Outcome == outcome {
			n++
		}
	}
	return n
}

// Verify compares a replay with its recording: each replayed call's
// status and duration (read from the replay log by the check engine, as
// from the recording) by diff's rules, its answer after o.Comparer's
// ignores, and the tool listings as diff compares them.
func Verify(rec *Recording, res *Result, o VerifyOptions) (*Verification, error) {
	if o.Comparer == nil {
		c, err := NewComparer(nil, false, false)
		if err != nil {
			return nil, err
		}
		o.Comparer = c
	}
	if o.Durations.Ratio < 1 {
		o.Durations = diff.DefaultOptions
	}
	v := &Verification{
		Recording: rec.Source, RecordingPath: rec.Path, SessionID: rec.SessionID, Label: rec.Label,
		ReplayLog: res.Log, ReplaySessionID: res.SessionID, Target: res.Target, Revision: res.Revision,
		Ignores: o.Comparer.Ignores, IgnoreOrder: o.Comparer.IgnoreOrder, Stopped: res.Stopped, FailOnSlower: o.FailOnSlower,
		Declined: nonNil(res.Declined), Notes: nonNil(res.Notes), Tools: []ToolChange{}, Calls: []CallVerdict{},
	}
	replayed, listing, err := readReplay(res)
	if err != nil {
		return nil, err
	}
	listingRegressed := false
	if rec.report != nil && rec.report.Listing.Complete && listing.Complete {
		v.ToolsCompared = true
		d := diff.Compare(diff.Side{Tools: rec.report.Listing.Tools}, diff.Side{Tools: listing.Tools}, o.Durations)
		for _, e := range d.Tools {
			one := diff.Result{Tools: []tooldef.DriftEntry{e}}
			v.Tools = append(v.Tools, ToolChange{Kind: string(e.Kind), Label: e.Kind.Label(), Tool: e.Tool, Regression: one.Regressed()})
		}
		listingRegressed = d.Regressed()
	}
	for _, r := range rec.Steps {
		if r.Method == "tools/list" && r.Answer != nil && v.ListingLine == 0 {
			v.ListingLine = r.Answer.Line
		}
	}
	listingChange := ""
	if len(v.Tools) > 0 {
		var parts []string
		for _, t := range v.Tools {
			parts = append(parts, t.Label+": "+t.Tool)
		}
		listingChange = "the tool listing changed: " + strings.Join(parts, "; ")
	}
	for _, out := range res.Outcomes {
		v.Calls = append(v.Calls, judge(rec, out, replayed, listingRegressed, listingChange, o))
	}
	v.Durations = judgeDurations(v.Calls, o)
	return v, nil
}

// judge compares one replayed call with its recording.
func judge(rec *Recording, out *Outcome, replayed map[string]checker.CallRecord, listingRegressed bool, listingChange string, o VerifyOptions) CallVerdict {
	r := out.Request
	c := CallVerdict{Line: r.Line, Seq: r.Seq, Method: r.Method, Name: r.Name, Arguments: arguments(r), ReplayID: string(out.ID)}
	if r.Answer != nil {
		c.AnswerLine = r.Answer.Line
	}
	switch {
	case out.Skipped != "":
		c.Outcome, c.Reason = OutcomeNotReplayed, out.Skipped
		return c
	case out.NotOffered:
		c.Outcome, c.Regression = OutcomeNotOffered, true
		c.Reason = "the replayed tools/list no longer lists tool " + fmt.Sprintf("%q", r.Name)
		return c
	}
	c.Reason = out.Failure
	before, hasBefore := rec.calls[callKey(string(r.ID), r.TS)]
	after, hasAfter := replayed[string(out.ID)]
	c.Before, c.After = "pending", "pending"
	if hasBefore {
		c.Before = before.Status
		if before.HasDuration {
			c.BeforeMS = ms(before.Duration)
		}
	}
	if hasAfter {
		c.After = after.Status
		if after.HasDuration {
			c.AfterMS = ms(after.Duration)
		}
	}
	// The statuses are judged by diff itself, on a pair of one-call
	// sessions; durations are judged per tool, once every call is in
	// (judgeDurations).
	sig := r.Name
	if sig == "" {
		sig = r.Method
	}
	one := func(status string) diff.Side {
		return diff.Side{Calls: []diff.Call{{Tool: sig, Args: c.Arguments, Status: status}}}
	}
	d := diff.Compare(one(c.Before), one(c.After), o.Durations)
	worse := len(d.Statuses) > 0 && d.Statuses[0].Regression()
	better := len(d.Statuses) > 0 && !worse && (diff.StatusChange{Before: c.After, After: c.Before}).Regression()
	switch {
	case out.TimedOut:
		c.Outcome = OutcomeTimeout
		c.Reason = "no answer within the call timeout"
	case worse && c.After == "error":
		c.Outcome = OutcomeErrorNow
		if c.Reason == "" {
			c.Reason = errorText(out.Answer)
		}
	case worse || out.Answer == nil && out.Status == 0:
		// No answer, and not for want of time: the server is gone, or the
		// exchange failed (out.Failure says how).
		c.Outcome = OutcomeFailed
		if c.Reason == "" {
			c.Reason = "no answer reached the replay log"
		}
	case better:
		c.Outcome = OutcomeOKNow
	case r.Method == "tools/list":
		c.Outcome = OutcomeSame
		if listingChange != "" {
			c.Outcome, c.Reason = OutcomeChanged, listingChange
		}
	default:
		var recorded json.RawMessage
		if r.Answer != nil {
			recorded = r.Answer.Message
		}
		c.Changes, c.ChangesTotal = o.Comparer.Diff(recorded, out.Answer)
		c.Outcome = OutcomeSame
		if c.ChangesTotal > 0 {
			c.Outcome = OutcomeChanged
		}
	}
	c.Regression = d.Regressed() || c.Outcome == OutcomeChanged && (r.Method != "tools/list" || listingRegressed) ||
		c.Outcome == OutcomeTimeout || c.Outcome == OutcomeFailed || c.Outcome == OutcomeErrorNow
	return c
}

func ms(d time.Duration) *float64 {
	v := float64(d) / float64(time.Millisecond)
	return &v
}

// arguments is a call's params.arguments in canonical form, as diff
// matches calls.
func arguments(r *Request) string {
	if r.Method != "tools/call" && r.Method != "prompts/get" {
		return ""
	}
	call, _ := diff.CallFromRecord(checker.CallRecord{Method: "tools/call", Name: "x", Arguments: nonNull(object(r.Params)["arguments"])})
	return call.Args
}

// readReplay runs the check engine over the replay's frames in its log.
func readReplay(res *Result) (map[string]checker.CallRecord, checker.ToolListing, error) {
	calls := map[string]checker.CallRecord{}
	var listing checker.ToolListing
	if res.SessionID == "" {
		return calls, listing, nil // nothing reached the log
	}
	eng := checker.New(checker.Config{
		Sessions: map[string]bool{res.SessionID: true},
		OnCall:   func(c checker.CallRecord) { calls[c.ID] = c },
	})
	err := res.readLog(func(fr *capture.Frame, line int) bool {
		return eng.Ingest(fr, checker.Position{Path: res.Log, Name: res.Log, Line: line})
	}, eng.TornTail)
	if err != nil {
		return nil, listing, err
	}
	if rep := eng.Report(); len(rep.Sessions) > 0 {
		listing = rep.Sessions[0].Listing
	}
	return calls, listing, nil
}

// readLog reads the replay's frames in its log (those from Offset on)
// with capture.ReadLog.
func (res *Result) readLog(each func(*capture.Frame, int) bool, lost func()) error {
	f, err := os.Open(res.Log)
	if err != nil {
		return fmt.Errorf("replay log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(res.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("replay log: %w", err)
	}
	return capture.ReadLog(f, res.Log, each, lost)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// maxErrorText bounds the error message an error-now call quotes.
const maxErrorText = 200

// errorText says what the failing answer msg said: a JSON-RPC error's code
// and message, or the text of a tool result marked isError; "" when it
// says nothing.
func errorText(msg json.RawMessage) string {
	if e, ok := decodeError(errorOf(msg)); ok {
		return fmt.Sprintf("the server answered error %d %s", e.Code, strconv.Quote(cut(e.Message, maxErrorText)))
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(resultOf(msg), &res) != nil || !res.IsError {
		return ""
	}
	var texts []string
	for _, c := range res.Content {
		if c.Type == "text" && c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	if len(texts) == 0 {
		return "the tool answered isError, with no text"
	}
	return "the tool answered isError " + strconv.Quote(cut(strings.Join(texts, " "), maxErrorText))
}

// cut shortens s to n characters, with … where it was cut.
func cut(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
