package sarif

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/replay"
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

// The rules of `mcpsnoop verify`: one per way a replayed call can regress,
// one for a changed tool listing, and a note for calls not replayed.
const (
	RuleVerifyChanged     = "mcpsnoop/verify-changed"
	RuleVerifyErrorNow    = "mcpsnoop/verify-error-now"
	RuleVerifyTimeout     = "mcpsnoop/verify-timeout"
	RuleVerifyFailed      = "mcpsnoop/verify-failed"
	RuleVerifySlower      = "mcpsnoop/verify-slower"
	RuleVerifyNotOffered  = "mcpsnoop/verify-not-offered"
	RuleVerifyTools       = "mcpsnoop/verify-tools"
	RuleVerifyNotReplayed = "mcpsnoop/verify-not-replayed"
)

var verifyRules = []rule{
	{
		id: RuleVerifyChanged, name: "AnswerChanged",
		short: "A replayed call was answered differently",
		full:  "The recorded call was replayed against the new build of the server and its answer differs from the recorded one, once the ignored fields (ids, timestamps, progress tokens and those given with --ignore) are removed. The message lists the JSON paths that changed.",
		help:  "If the new answer is what the server should say now, record the session again or run mcpsnoop verify --update to accept it. If a field changes on every run, ignore it with --ignore JSONPATH. Otherwise the build changed behaviour it should not have.",
	},
	{
		id: RuleVerifyErrorNow, name: "CallFailsNow",
		short: "A replayed call fails that succeeded when recorded",
		full:  "The recorded call succeeded; replayed against the new build it ended in a JSON-RPC error, a result marked isError, or an HTTP failure.",
		help:  "Read the replayed answer in the replay log named in the report (open it with mcpsnoop open) and fix the handler or the change that broke it.",
	},
	{
		id: RuleVerifyTimeout, name: "CallTimedOut",
		short: "A replayed call got no answer in time",
		full:  "The recorded call was answered; replayed against the new build it got no answer within --call-timeout, and the replay cancelled it and went on.",
		help:  "Find out why the server hangs on this call. If it only needs longer, raise --call-timeout.",
	},
	{
		id: RuleVerifyFailed, name: "CallFailed",
		short: "A replayed call got no answer",
		full:  "The recorded call was answered; replayed against the new build it got no answer, and not for want of time: the server exited or closed its stdout, the HTTP exchange failed, or the event stream ended before the answer. The message says which.",
		help:  "Read the end of the server's stderr in the replay log named in the report (open it with mcpsnoop open): a crash on this call, or on the one before it, is the usual cause.",
	},
	{
		id: RuleVerifySlower, name: "CallSlower",
		short: "A replayed call's tool got notably slower",
		full:  "The median duration of the tool's replayed calls exceeds the median of its recorded calls by at least --duration-threshold and by a ratio of at least --duration-ratio, the thresholds mcpsnoop diff uses. Reported only with --fail-on-slower.",
		help:  "Profile the handler on the new build. Raise --duration-threshold or --duration-ratio if the recording's machine was much faster than the one replaying it, or leave --fail-on-slower out to have slower tools reported without failing.",
	},
	{
		id: RuleVerifyNotOffered, name: "ToolNoLongerOffered",
		short: "A recorded call's tool is no longer offered",
		full:  "The recorded session called this tool, and the new build's tools/list does not list it any more, so the call was not replayed. Clients that relied on the tool break.",
		help:  "Restore the tool, or keep its old name as an alias, or record the session again if the removal is intended.",
	},
	{
		id: RuleVerifyTools, name: "ToolListingChanged",
		short: "The tool listing changed",
		full:  "The new build's tools/list differs from the recorded one the way mcpsnoop diff reports it: a tool was removed, or a tool's description, title, input or output schema or annotations changed.",
		help:  "A changed definition changes what a model is told about the tool. Review the change, and record the session again (or run mcpsnoop verify --update) once it is intended.",
	},
	{
		id: RuleVerifyNotReplayed, name: "CallNotReplayed",
		short: "A recorded call was not replayed",
		full:  "The call was left out of the replay: its tool is not annotated read-only (or idempotent and not destructive), the recording redacted it, or the replay stopped before it. The message says which.",
		help:  "Pass --all to replay every call, after making sure the target is a server it is safe to change.",
	},
}

// WriteVerify renders a verification as a SARIF 2.1.0 log: its own rules,
// then one result per regression (level error) and per call not replayed
// (level note), each pointing at the recorded call's line in the
// recording. Fingerprints leave out ids, lines and timestamps, as check's
// do, so an alert survives a new recording of the same scenario.
func WriteVerify(w io.Writer, v *replay.Verification, opts Options) error {
	doc, err := gosarif.New(gosarif.Version210)
	if err != nil {
		return fmt.Errorf("sarif: %w", err)
	}
	doc.Schema = SchemaURI
	version := opts.Version
	if version == "" {
		version = DevVersion
	}
	run := gosarif.NewRunWithInformationURI(ToolName, InformationURI)
	run.Tool.Driver.WithVersion(version)
	for _, r := range verifyRules {
		run.AddRule(r.id).WithName(r.name).WithDescription(r.short).
			WithFullDescription(gosarif.NewMultiformatMessageString(r.full)).WithTextHelp(r.help)
	}
	doc.AddRun(run)
	loc := newLocator(opts)
	occurrences := map[string]int{}
	add := func(rule, level, method, name, msg string, line int) error {
		res := gosarif.NewRuleResult(rule).WithLevel(level).WithMessage(gosarif.NewTextMessage(msg))
		l, err := loc.location(v.RecordingPath, line)
		if err != nil {
			return err
		}
		if l != nil {
			res.WithLocations([]*gosarif.Location{l})
		}
		key := strings.Join([]string{v.Label, rule, method, name}, "\x00")
		res.WithPartialFingerPrints(map[string]interface{}{FingerprintKey: verifyFingerprint(key, occurrences[key])})
		occurrences[key]++
		run.AddResult(res)
		return nil
	}
	for _, t := range v.Tools {
		if !t.Regression {
			continue
		}
		if err := add(RuleVerifyTools, "error", "tools/list", t.Tool, fmt.Sprintf("tool %q: %s", t.Tool, t.Label), v.ListingLine); err != nil {
			return err
		}
	}
	for _, c := range v.Calls {
		for _, f := range callFindings(&c, v.FailOnSlower) {
			if err := add(f.rule, f.level, c.Method, c.Name, f.msg, c.Line); err != nil {
				return err
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("sarif: %w", err)
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

type verifyFinding struct{ rule, level, msg string }

// callFindings are the results one call gives. A slower call is a result
// only when slower fails the verify (failOnSlower): otherwise the text and
// JSON reports list it, and code scanning gets no alert that a busy
// runner could raise.
func callFindings(c *replay.CallVerdict, failOnSlower bool) []verifyFinding {
	var out []verifyFinding
	subject := c.Subject()
	switch {
	case c.Outcome == replay.OutcomeNotReplayed:
		return []verifyFinding{{RuleVerifyNotReplayed, "note", subject + " was not replayed: " + c.Reason}}
	case c.Outcome == replay.OutcomeNotOffered:
		return []verifyFinding{{RuleVerifyNotOffered, "error", subject + ": " + c.Reason}}
	case c.Outcome == replay.OutcomeErrorNow:
		msg := subject + " fails now (" + c.Before + " -> " + c.After + ")"
		if c.Reason != "" {
			msg += ": " + c.Reason
		}
		out = append(out, verifyFinding{RuleVerifyErrorNow, "error", msg})
	case c.Outcome == replay.OutcomeTimeout:
		out = append(out, verifyFinding{RuleVerifyTimeout, "error", subject + " got no answer in time (" + c.Before + " -> " + c.After + ")"})
	case c.Outcome == replay.OutcomeFailed:
		msg := subject + " got no answer (" + c.Before + " -> " + c.After + ")"
		if c.Reason != "" {
			msg += ": " + c.Reason
		}
		out = append(out, verifyFinding{RuleVerifyFailed, "error", msg})
	case c.Outcome == replay.OutcomeChanged && c.Method == "tools/list":
		// Reported tool by tool (RuleVerifyTools).
	case c.Outcome == replay.OutcomeChanged && c.Regression:
		var paths []string
		for _, ch := range c.Changes {
			paths = append(paths, ch.String())
		}
		msg := subject + " was answered differently"
		if c.Reason != "" {
			msg += ": " + c.Reason
		}
		if len(paths) > 0 {
			msg += ": " + strings.Join(paths, "; ")
		}
		if more := c.ChangesTotal - len(c.Changes); more > 0 {
			msg += "; and " + strconv.Itoa(more) + " more"
		}
		out = append(out, verifyFinding{RuleVerifyChanged, "error", msg})
	}
	if c.Slower && c.Regression && failOnSlower {
		out = append(out, verifyFinding{RuleVerifySlower, "error", fmt.Sprintf("%s got slower: %s -> %s", subject, msText(c.BeforeMS), msText(c.AfterMS))})
	}
	return out
}

func msText(ms *float64) string {
	if ms == nil {
		return "-"
	}
	return strconv.FormatFloat(*ms, 'f', 1, 64) + "ms"
}

// verifyFingerprint hashes a result's identity (label, rule, method,
// tool) with its occurrence index, as check's fingerprints do.
func verifyFingerprint(key string, occurrence int) string {
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.Itoa(occurrence)))
	return hex.EncodeToString(sum[:])[:16]
}
