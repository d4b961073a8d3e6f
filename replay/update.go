package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// Updated says what Update changed in a recording.
type Updated struct {
	// Answers is how many recorded answers were replaced by the new
	// build's (the initialize answer included).
	Answers int
	// Kept is how many recorded calls were not replayed and stay as they
	// were recorded.
	Kept int
	// Dropped names the calls to tools the new build no longer offers,
	// taken out of the recording with their answers.
	Dropped []string
	// Redacted is set when the recording holds frames redacted at capture:
	// the new answers were redacted only by the replay's own rules.
	Redacted bool
}

// CheckUpdate says why a replay cannot be accepted into its recording
// (nil when it can): a recording that is not one session in a file, or a
// replay that does not say what the new build answers to every call it
// sent (it stopped, or a call timed out or got no usable answer).
func CheckUpdate(rec *Recording, res *Result) error {
	switch {
	case rec.Path == "":
		return fmt.Errorf("--update rewrites the recording, which needs it as a file, not %s", rec.Source)
	case rec.sessions > 1:
		return fmt.Errorf("--update rewrites a log of one session; %s holds %d", rec.Source, rec.sessions)
	case res.SessionID == "":
		return fmt.Errorf("the replay wrote nothing to %s", res.Log)
	case res.Stopped != "":
		return fmt.Errorf("the replay stopped (%s), so it does not say what the new build answers to the calls after that", res.Stopped)
	}
	var bad []string
	for _, o := range res.Outcomes {
		if !o.Sent() {
			continue
		}
		switch {
		case o.TimedOut:
			bad = append(bad, describe(o.Request)+" timed out")
		case o.Failure != "":
			bad = append(bad, describe(o.Request)+": "+o.Failure)
		case o.Answer == nil:
			bad = append(bad, describe(o.Request)+" got no answer")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	shown := bad[:min(len(bad), 3)]
	msg := strings.Join(shown, "; ")
	if more := len(bad) - len(shown); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return fmt.Errorf("%d replayed call(s) got no usable answer (%s), so the replay does not say what the new build answers", len(bad), msg)
}

// Update accepts a replay into its recording, as a VCR re-records its
// cassette: the recording keeps every frame it holds (the recorded
// client's requests, the server's notifications and questions, the calls
// that were not replayed), and the answer of each call the replay sent,
// and of initialize, becomes the new build's, timed as the replay timed
// it. A call to a tool the new build no longer offers is taken out with
// its answers. The file is replaced through a temporary file renamed into
// place, and nothing is written when CheckUpdate refuses.
func Update(rec *Recording, res *Result) (*Updated, error) {
	if err := CheckUpdate(rec, res); err != nil {
		return nil, err
	}
	requests, answers, err := replayedFrames(res)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(rec.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rec.Source, atomicfile.PlainError(err))
	}
	frames := map[int]*capture.Frame{}
	up := &Updated{}
	var two error
	err = capture.ReadLog(bytes.NewReader(data), rec.Source, func(f *capture.Frame, line int) bool {
		if _, dup := frames[line]; dup && two == nil {
			two = fmt.Errorf("%s: line %d holds two envelopes; --update rewrites a log of one envelope a line", rec.Source, line)
		}
		c := f.Clone()
		frames[line] = &c
		up.Redacted = up.Redacted || f.Redacted
		return true
	}, func() {})
	if err == nil {
		err = two
	}
	if err != nil {
		return nil, err
	}

	p := &patch{rec: rec, frames: frames, edits: map[int]*lineEdit{}}
	// The replayed answer to the replay's last request for r (its last
	// MRTR retry), and when that request was sent.
	answer := func(r *Request, last json.RawMessage) error {
		ans, ok := answers[string(last)]
		start, sent := requests[string(last)]
		if !ok || !sent {
			return fmt.Errorf("the replay log %s holds no answer to the replay of %s", res.Log, describe(r))
		}
		return p.answer(r, start, ans)
	}
	if rec.Init != nil && res.initID != nil {
		if err := answer(rec.Init, res.initID); err != nil {
			return nil, err
		}
		up.Answers++
	}
	for _, o := range res.Outcomes {
		switch {
		case o.NotOffered:
			if err := p.drop(o.Request); err != nil {
				return nil, err
			}
			up.Dropped = append(up.Dropped, describe(o.Request))
		case !o.Sent():
			up.Kept++
		default:
			if err := answer(o.Request, o.lastID); err != nil {
				return nil, err
			}
			up.Answers++
		}
	}
	out, err := p.write(data)
	if err != nil {
		return nil, err
	}
	perm := os.FileMode(0o644)
	if info, err := os.Stat(rec.Path); err == nil {
		perm = info.Mode().Perm()
	}
	if err := atomicfile.Write(rec.Path, out, perm); err != nil {
		return nil, fmt.Errorf("%s: %w", rec.Path, err)
	}
	return up, nil
}

// replayedFrames reads the replay's session from its log: when each
// request was sent, and each JSON-RPC answer, by the replay's ids.
func replayedFrames(res *Result) (map[string]time.Time, map[string]capture.Frame, error) {
	requests, answers := map[string]time.Time{}, map[string]capture.Frame{}
	err := res.readLog(func(fr *capture.Frame, _ int) bool {
		if fr.SessionID != res.SessionID || len(fr.Raw) == 0 {
			return fr.SessionID == res.SessionID
		}
		var m message
		if json.Unmarshal(fr.Raw, &m) != nil || !m.hasID() {
			return true
		}
		switch {
		case fr.Direction == capture.ClientToServer && m.Method != "":
			requests[string(m.ID)] = fr.TS
		case fr.Direction == capture.ServerToClient && m.Method == "" && (m.Result != nil || m.Error != nil):
			answers[string(m.ID)] = fr.Clone()
		}
		return true
	}, func() {})
	return requests, answers, err
}

// patch is the set of changes Update makes to the recording, by line.
type patch struct {
	rec    *Recording
	frames map[int]*capture.Frame
	edits  map[int]*lineEdit
}

type lineEdit struct {
	drop    bool
	replace *newAnswer
	after   []*newAnswer // inserted after the line
}

// newAnswer is a replayed answer as it goes into the recording: sent
// took after the recorded request it answers (at line reqLine, as the
// updated recording times it) as it took after the replay's.
type newAnswer struct {
	frame   capture.Frame
	reqLine int
	took    time.Duration
}

func (p *patch) edit(line int) *lineEdit {
	e := p.edits[line]
	if e == nil {
		e = &lineEdit{}
		p.edits[line] = e
	}
	return e
}

// answer puts the replay's answer ans (to a request sent at start) in
// place of r's recorded final answer, or after r's last request when none
// was recorded.
func (p *patch) answer(r *Request, start time.Time, ans capture.Frame) error {
	line, seq := r.Line, r.Seq
	if n := len(r.retryLines); n > 0 {
		line, seq = r.retryLines[n-1], r.retrySeqs[n-1]
	}
	reqLine := line
	if r.Answer != nil {
		line, seq = r.Answer.Line, r.Answer.Seq
	}
	base := p.frames[line]
	if base == nil || base.Seq != seq {
		return fmt.Errorf("%s changed while it was replayed (line %d is not the frame it was); run verify --update again", p.rec.Source, line)
	}
	if t := bytes.TrimLeft(base.Raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return fmt.Errorf("%s is part of a batch (line %d); --update rewrites single messages only, so record the session again", describe(r), line)
	}
	nf := ans
	nf.SessionID, nf.ServerLabel, nf.Transport, nf.ConnID = base.SessionID, base.ServerLabel, base.Transport, base.ConnID
	nf.Direction = capture.ServerToClient
	nf.Raw = readdressed(ans.Raw, r.lastID)
	nf.McpMethod, nf.McpName, nf.McpProtocolVersion, nf.McpParamHeaders = "", "", "", nil
	nf.Accept, nf.Origin, nf.ReplyTo = "", "", nil
	// As long after the recorded request as the replayed answer came
	// after the replay's: the duration the check engine reads is the new
	// build's.
	na := &newAnswer{frame: nf, reqLine: reqLine, took: max(ans.TS.Sub(start), 0)}
	if r.Answer != nil {
		na.frame.Batch = base.Batch
		p.edit(line).replace = na
	} else {
		na.frame.Batch = false
		p.edit(line).after = append(p.edit(line).after, na)
	}
	return nil
}

// drop takes r out: its requests and every answer to them.
func (p *patch) drop(r *Request) error {
	for _, l := range append(append([]int{r.Line}, r.retryLines...), r.answerLines...) {
		if f := p.frames[l]; f != nil {
			if t := bytes.TrimLeft(f.Raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
				return fmt.Errorf("%s is part of a batch (line %d); --update rewrites single messages only, so record the session again", describe(r), l)
			}
		}
		p.edit(l).drop = true
	}
	return nil
}

// write applies the edits to the log's lines. A frame taken out or put
// in moves the seq of the frames after it (seq numbers stay gapless: a
// gap reads as lost frames), and an answer that now takes longer or
// shorter moves the time of the frames after it by as much (the client's
// pauses as recorded). From the first edit on, the timeline keeps the
// rules of a capture: no frame is timed before the one logged before it,
// so no answer precedes its request, even where the recording pipelined
// requests that the replay sent one at a time. Lines nothing moved are
// kept byte for byte.
func (p *patch) write(data []byte) ([]byte, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(data))
	shift := int64(0)
	var offset time.Duration
	t := timeline{at: map[int]time.Time{}}
	emit := func(f capture.Frame) error {
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false) // as a capture writes
		if err := enc.Encode(&f); err != nil {
			return fmt.Errorf("writing the updated recording: %w", err)
		}
		return nil
	}
	for i, raw := range lines {
		line := i + 1
		f := p.frames[line]
		e := p.edits[line]
		if f == nil {
			out.Write(raw) // a blank or torn line, kept as it is
			continue
		}
		if e != nil && e.drop {
			shift--
			t.edited = true
			continue
		}
		seq := uint64(int64(f.Seq) + shift)
		switch {
		case e != nil && e.replace != nil:
			nf := e.replace.frame
			nf.Seq = seq
			nf.TS = t.answer(e.replace)
			offset = nf.TS.Sub(f.TS)
			if err := emit(nf); err != nil {
				return nil, err
			}
			t.logged(line, nf.TS)
		default:
			ts := t.moved(f.TS.Add(offset))
			if shift != 0 || !ts.Equal(f.TS) {
				nf := *f
				nf.Seq, nf.TS = seq, ts
				if err := emit(nf); err != nil {
					return nil, err
				}
			} else {
				out.Write(raw)
				if !bytes.HasSuffix(raw, []byte("\n")) {
					out.WriteByte('\n')
				}
			}
			t.logged(line, ts)
		}
		if e == nil {
			continue
		}
		for _, ins := range e.after {
			seq++
			shift++
			nf := ins.frame
			nf.Seq = seq
			nf.TS = t.answer(ins)
			if err := emit(nf); err != nil {
				return nil, err
			}
			t.logged(0, nf.TS)
		}
	}
	return out.Bytes(), nil
}

// timeline is when the frames of the updated recording are logged.
type timeline struct {
	at     map[int]time.Time // by the line of the recording they were at
	last   time.Time         // the latest time logged so far
	edited bool              // a frame was put in, replaced or taken out
}

func (t *timeline) logged(line int, ts time.Time) {
	if line > 0 {
		t.at[line] = ts
	}
	if ts.After(t.last) {
		t.last = ts
	}
}

// answer is when a replayed answer is logged: as long after its request
// as the replay's took, and not before the frame logged before it.
func (t *timeline) answer(a *newAnswer) time.Time {
	t.edited = true
	return t.notBeforeLast(t.at[a.reqLine].Add(a.took))
}

// moved is when a recorded frame, moved to ts, is logged: at ts, or once
// anything was edited, not before the frame logged before it.
func (t *timeline) moved(ts time.Time) time.Time {
	if !t.edited {
		return ts
	}
	return t.notBeforeLast(ts)
}

func (t *timeline) notBeforeLast(ts time.Time) time.Time {
	if ts.Before(t.last) {
		return t.last
	}
	return ts
}

// readdressed is a response message with its id replaced, its members in
// their order.
func readdressed(msg json.RawMessage, id json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	seen := false
	ok := capture.ObjectMembers(msg, func(name string, value []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(encode(name))
		b.WriteByte(':')
		if name == "id" {
			value, seen = id, true
		}
		b.Write(value)
	})
	if !ok || !seen {
		return withID(msg, id)
	}
	b.WriteByte('}')
	return b.Bytes()
}
