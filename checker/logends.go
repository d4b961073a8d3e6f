package checker

import (
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// What a log says about its own completeness besides its seq gaps: a
// closing frame counts what the capture lost at the end; a first frame
// marked unreserved says the capture could not set room aside for that
// closing frame, so that without one a loss at the end would go uncounted;
// and a seq that jumps further than any capture loses is no count at all.

// maxSeqGap is the widest gap between two seqs counted as lost frames. A
// capture numbers every frame it sees, so a wider one (a jump to 2^63) is
// a log that was cut together or forged: its size says nothing.
const maxSeqGap = 1 << 31

// maxMissing caps the missing frames a session reports.
const maxMissing = 1<<31 - 1

// logEnds is a session's account of its log's completeness.
type logEnds struct {
	unreserved bool   // the first frame said no room was set aside for the closing frame
	closed     bool   // a closing frame was read
	jumps      int    // seq jumps wider than maxSeqGap
	jumpFrom   uint64 // the first one
	jumpTo     uint64
}

// seq counts the frames a seq skips: the gap after the session's last
// seq, or a jump.
func (s *session) seq(f *capture.Frame) {
	if f.Seq <= s.lastSeq {
		return // reordered or repeated seqs add nothing
	}
	if gap := f.Seq - s.lastSeq - 1; gap > maxSeqGap {
		if s.ends.jumps == 0 {
			s.ends.jumpFrom, s.ends.jumpTo = s.lastSeq, f.Seq
		}
		s.ends.jumps++
	} else {
		s.counters.MissingFrames = int(min(uint64(s.counters.MissingFrames)+gap, maxMissing))
	}
	s.lastSeq = f.Seq
}

// logFrame notes what a frame says of its log.
func (s *session) logFrame(f *capture.Frame) {
	if f.Unreserved {
		s.ends.unreserved = true
	}
	if f.Direction == capture.Meta && len(f.Raw) == 0 && (f.LastSeq > 0 || f.Dropped > 0) {
		s.ends.closed = true
	}
}

// incomplete makes the session's incomplete finding: the frames it lacks,
// and what makes that count unknown.
func (s *session) incomplete() {
	if s.dropped > uint64(s.counters.MissingFrames) {
		s.counters.MissingFrames = int(min(s.dropped, maxMissing))
	}
	n := s.counters.MissingFrames
	var why []string
	if s.ends.jumps > 0 {
		why = append(why, "seq jumped from "+strconv.FormatUint(s.ends.jumpFrom, 10)+" to "+strconv.FormatUint(s.ends.jumpTo, 10)+": an unknown number of frames lost")
	}
	if s.ends.unreserved && !s.ends.closed {
		why = append(why, "its log could not set room aside for a closing frame when it opened (the disk was nearly full), and has none: frames lost at its end would not be counted")
	}
	if n == 0 && len(why) == 0 {
		return
	}
	text := " has " + strconv.Itoa(n) + " " + plural(n, "dropped frame", "dropped frames")
	kind := "session has <n> dropped frame(s)"
	if len(why) > 0 {
		kind += "; " + "<why the count is not known>"
		for _, w := range why {
			text += "; " + w
		}
	}
	s.addFinding(findingInput{
		signal: SignalIncomplete, phase: phaseIncomplete, sessionWide: true, party: PartyTransport,
		kind: kind, text: text,
	})
}
