package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/replay"
	"github.com/mcpsnoop/mcpsnoop/viewer"
)

// viewerReplayer is the viewer's r and R: the recorded session is read
// again from its log, and the one call is replayed after the recorded
// handshake, through the shim (stdio) or the HTTP proxy (--replay-target),
// into <state>/replays/<session-id>.jsonl.
func viewerReplayer(flags replayFlags, header http.Header, red *capture.Redactor, redact capturecli.RedactFlags) viewer.ReplayFunc {
	return func(req viewer.ReplayRequest) (*viewer.ReplayJob, error) {
		rec, err := replay.Load(capture.Input{Path: req.Path, Name: req.Path}, nil, req.SessionID)
		if err != nil {
			return nil, err
		}
		// The line is exact (the row was read from that line of that
		// log); the seq is for a frame whose line is unknown.
		r := rec.FindLine(req.Line)
		if r == nil && req.Seq > 0 {
			r = rec.Find(req.Seq)
		}
		if r == nil {
			return nil, fmt.Errorf("line %d of %s is not a request the replay can send", req.Line, req.Path)
		}
		if rec.Transport == capture.TransportHTTP && flags.target == "" {
			return nil, errors.New("an HTTP session is replayed only against an address you name: open it with mcpsnoop open --replay-target URL (the recorded endpoint is never dialed)")
		}
		edited := req.Params != nil
		if why := rec.SkipReason(r, flags.all, req.Params); why != "" {
			return nil, errors.New(why)
		}
		if why := rec.InitSkipReason(); why != "" {
			return nil, errors.New(why)
		}
		shim, err := shimExecutable()
		if err != nil {
			return nil, fmt.Errorf("cannot find the mcpsnoop executable: %v", err)
		}
		log, err := defaultReplayLog(rec.SessionID)
		if err != nil {
			return nil, err
		}
		target := replay.Target{Shim: shim, ShimArgs: redact.Args(), URL: flags.target, Header: header, Redactor: red, Log: log, LogInState: true}
		where, err := replay.Describe(rec, target)
		if err != nil {
			return nil, err
		}
		call := r.Method
		if r.Name != "" {
			call += " " + r.Name
		}
		call += " (line " + strconv.Itoa(r.Line) + ")"
		if edited {
			call += ", edited"
		}
		run := func(ctx context.Context) viewer.ReplayResult {
			opts := replay.Options{All: flags.all, CallTimeout: flags.timeout, ClientName: "mcpsnoop-replay", ClientVersion: appVersion(),
				Only: func(x *replay.Request) bool { return x == r }}
			if edited {
				opts.Edited = map[*replay.Request]json.RawMessage{r: req.Params}
			}
			res, err := replay.Run(ctx, rec, target, opts)
			if err != nil {
				return viewer.ReplayResult{Err: err}
			}
			return replayResult(rec, r, res, edited)
		}
		return &viewer.ReplayJob{Call: call, Target: where, Run: run}, nil
	}
}

// replayResult puts one replayed call beside its recording, with what
// differs.
func replayResult(rec *replay.Recording, r *replay.Request, res *replay.Result, edited bool) viewer.ReplayResult {
	out := viewer.ReplayResult{Log: res.Log}
	if r.Answer != nil {
		out.Recorded = prettyAnswer(r.Answer.Message, r.Answer.Status, r.Answer.Text)
		out.RecordedAt = fmt.Sprintf("%s, line %d", rec.Source, r.Answer.Line)
	}
	var o *replay.Outcome
	for _, x := range res.Outcomes {
		if x.Request == r {
			o = x
		}
	}
	switch {
	case o == nil || !o.Sent():
		why := res.Stopped
		if o != nil && o.Skipped != "" {
			why = o.Skipped
		}
		if o != nil && o.NotOffered {
			why = "the server's tools/list does not list this tool"
		}
		out.Notes = append(out.Notes, "not sent: "+why)
	case o.TimedOut:
		out.Notes = append(out.Notes, "no answer within the call timeout; the call was cancelled")
	case o.Answer == nil && o.Status == 0:
		out.Notes = append(out.Notes, "no answer: "+o.Failure)
	default:
		out.Replayed = prettyAnswer(o.Answer, o.Status, "")
		out.Notes = append(out.Notes, fmt.Sprintf("answered in %s", o.Elapsed.Round(1000)))
		if o.Failure != "" {
			out.Notes = append(out.Notes, o.Failure)
		}
		if r.Answer != nil && !edited {
			c, _ := replay.NewComparer(nil, false, false)
			changes, total := c.Diff(r.Answer.Message, o.Answer)
			if total == 0 {
				out.Notes = append(out.Notes, "same as recorded (ids, timestamps and serverInfo aside)")
			} else {
				out.Notes = append(out.Notes, fmt.Sprintf("differs from the recording in %d place(s):", total))
				for _, ch := range changes {
					out.Notes = append(out.Notes, "  "+ch.String())
				}
			}
		}
	}
	if res.Stopped != "" && (o == nil || o.Sent()) {
		out.Notes = append(out.Notes, "the replay stopped: "+res.Stopped)
	}
	for _, d := range res.Declined {
		out.Notes = append(out.Notes, "declined: "+d)
	}
	return out
}

// prettyAnswer is an answer as the page shows it: indented JSON, or the
// HTTP status and text it came as.
func prettyAnswer(msg json.RawMessage, status int, text string) string {
	if len(msg) > 0 {
		var b bytes.Buffer
		if json.Indent(&b, msg, "", "  ") == nil {
			return b.String()
		}
		return string(msg)
	}
	switch {
	case status != 0 && text != "":
		return fmt.Sprintf("HTTP %d: %s", status, text)
	case status != 0:
		return fmt.Sprintf("HTTP %d, no body", status)
	}
	return text
}
