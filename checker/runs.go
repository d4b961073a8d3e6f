package checker

import (
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/tracecontext"
	"github.com/tidwall/gjson"
)

// Runs group the sessions of one agent run. The key is the trace id the
// client put in a request's _meta.traceparent when there is one, else the
// client process our capture recorded in the meta frame (parent pid and its
// start time, so a reused pid never joins two runs). A session with neither
// stays ungrouped: nothing is guessed.

// Key kinds of a run.
const (
	RunKeyTrace   = "trace"
	RunKeyProcess = "process"
)

// maxTracesPerSession bounds the trace ids one session remembers.
const maxTracesPerSession = 256

// Run is one group of sessions.
type Run struct {
	ID         string   `json:"id"`
	KeyKind    string   `json:"key_kind"`
	Label      string   `json:"label"`
	SessionIDs []string `json:"session_ids"`
	Requests   int      `json:"requests"`
	Errors     int      `json:"errors"`
	// Newest is the time of the run's newest frame: runs are ordered by it
	// (never by seq, which only orders frames within a session).
	Newest time.Time `json:"newest"`
}

// runKeys is what a session contributes to runs.
type runKeys struct {
	process    bool
	ppid       int64
	ppidStart  time.Time
	traces     map[string]int // trace id -> requests that carried it
	traceOrder []string
	newest     time.Time
}

// onMeta reads the client process identity from a meta frame, when both
// fields are there and well formed.
func (s *session) onMeta(f *capture.Frame) {
	var meta struct {
		PPID      *json.Number `json:"ppid"`
		PPIDStart string       `json:"ppid_start"`
	}
	if json.Unmarshal(f.Raw, &meta) != nil || meta.PPID == nil || meta.PPIDStart == "" {
		return
	}
	pid, err := meta.PPID.Int64()
	start, terr := time.Parse(time.RFC3339Nano, meta.PPIDStart)
	if err != nil || terr != nil || pid <= 0 {
		return
	}
	s.runs.process, s.runs.ppid, s.runs.ppidStart = true, pid, start
}

// onTraceparent counts a client request under the trace its _meta names.
func (s *session) onTraceparent(fc *frameCtx) {
	if fc.f.Direction != capture.ClientToServer {
		return
	}
	tp := fc.msg.metaField("traceparent")
	if tp.Type != gjson.String {
		return
	}
	p, err := tracecontext.ParseTraceParent(tp.Str)
	if err != nil {
		return // an invalid traceparent is ignored whole
	}
	if s.runs.traces == nil {
		s.runs.traces = map[string]int{}
	}
	if _, known := s.runs.traces[p.TraceID]; !known {
		if len(s.runs.traces) >= maxTracesPerSession {
			return
		}
		id := clone(p.TraceID)
		s.runs.traceOrder = append(s.runs.traceOrder, id)
		s.runs.traces[id] = 0
	}
	s.runs.traces[p.TraceID]++
}

// runIDs are the runs a session belongs to: one per trace id, else its
// client process, else none.
func (r *runKeys) runIDs() []string {
	if len(r.traceOrder) > 0 {
		ids := make([]string, len(r.traceOrder))
		for i, t := range r.traceOrder {
			ids[i] = "t-" + t[:16]
		}
		return ids
	}
	if r.process {
		return []string{processRunID(r.ppid, r.ppidStart)}
	}
	return nil
}

func processRunID(pid int64, start time.Time) string {
	return "p-" + strconv.FormatInt(pid, 10) + "-" + strconv.FormatInt(start.Unix(), 10)
}

// buildRuns groups the closed sessions, newest run first. The sessions in
// no run are listed apart, each as a run of its own (Report.Solo).
func buildRuns(sessions []*session, reports []*SessionReport) (runs, solo []Run) {
	byID := map[string]*Run{}
	var order []*Run
	get := func(id, kind, label string) *Run {
		if r := byID[id]; r != nil {
			return r
		}
		r := &Run{ID: id, KeyKind: kind, Label: label}
		byID[id] = r
		order = append(order, r)
		return r
	}
	for i, s := range sessions {
		sr := reports[i]
		k := &s.runs
		join := func(r *Run, requests int) {
			r.SessionIDs = append(r.SessionIDs, s.id)
			r.Requests += requests
			r.Errors += sr.Counters.Errors
			if k.newest.After(r.Newest) {
				r.Newest = k.newest
			}
		}
		switch {
		case len(k.traceOrder) > 0:
			for _, t := range k.traceOrder {
				join(get("t-"+t[:16], RunKeyTrace, "trace "+t), k.traces[t])
			}
		case k.process:
			join(get(processRunID(k.ppid, k.ppidStart), RunKeyProcess,
				"client "+strconv.FormatInt(k.ppid, 10)+" since "+k.ppidStart.UTC().Format(time.RFC3339)), sr.Traffic.Requests)
		default:
			label := sr.Label
			if label == "" {
				label = "(no label)"
			}
			solo = append(solo, Run{ID: RunOfSession(s.id), KeyKind: RunKeySession, Label: label,
				SessionIDs: []string{s.id}, Requests: sr.Traffic.Requests, Errors: sr.Counters.Errors, Newest: k.newest})
		}
		sr.RunIDs = k.runIDs()
	}
	runs = make([]Run, len(order))
	for i, r := range order {
		runs[i] = *r
	}
	sortRuns(runs)
	sortRuns(solo)
	return runs, solo
}

// sortRuns orders runs newest first; of two equally new, a run of several
// sessions (trace, process) before a session's own, then by id.
func sortRuns(runs []Run) {
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].Newest.Equal(runs[j].Newest) {
			return runs[i].Newest.After(runs[j].Newest)
		}
		if si, sj := runs[i].KeyKind == RunKeySession, runs[j].KeyKind == RunKeySession; si != sj {
			return sj
		}
		return runs[i].ID < runs[j].ID
	})
}

// AllRuns is what --runs lists and --run picks from: the runs of rep and,
// for every session in no run, a run of that session alone (id
// s-<session id>, key kind session), newest first. So "latest" is the
// newest session when no run of several sessions is newer than it.
func AllRuns(rep *Report) []Run {
	all := append(append([]Run(nil), rep.Runs...), rep.Solo...)
	sortRuns(all)
	return all
}

// FindRun returns the run named id ("latest" names the newest), or false.
func FindRun(runs []Run, id string) (Run, bool) {
	if id == "latest" && len(runs) > 0 {
		return runs[0], true
	}
	for _, r := range runs {
		if r.ID == id {
			return r, true
		}
	}
	return Run{}, false
}
