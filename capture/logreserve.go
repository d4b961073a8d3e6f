package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A log that cannot end with its closing frame cannot count what it lost at
// its end: a disk that filled up after the last frame that made it leaves
// no gap in seq for a reader to see (5,974 frames lost, and check said
// missing_frames=0). So a log sets room aside for the closing frame when
// it opens (the sink's ClosingReserve, released just before that frame is
// written). When even that fails (under 16 KiB free), the log sets aside
// what one closing frame of this session takes, and failing that it says
// so in its first frame: "unreserved": true, which check reports as
// incomplete unless the log ends with a closing frame after all.

// reserveClosing makes sure the closing frame has room, after the sink
// tried to set ClosingReserve aside. It reports whether the log must say
// that it has none (out could reserve, and failed).
func (w *LogWriter) reserveClosing(out io.Writer) (unreserved bool) {
	if w.sink.release != nil {
		return false
	}
	release, failed := tryReserve(out, closingFrameRoom(w.sessionID, w.label, w.transport))
	if release != nil {
		w.sink.release = release
		return false
	}
	return failed
}

// closingFrameRoom is the most a closing frame of this session takes:
// its envelope with the longest seq, timestamp, last_seq and dropped.
func closingFrameRoom(sessionID, label, transport string) int {
	const maxUint = "18446744073709551615"
	fe := newFrameEncoder(sessionID, label)
	f := Frame{
		SessionID: sessionID, ServerLabel: label, Direction: Meta, Transport: transport,
		TS: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60))),
	}
	f.Seq, _ = strconv.ParseUint(maxUint, 10, 64)
	f.LastSeq, f.Dropped = f.Seq, f.Seq
	return len(fe.appendFrame(nil, &f)) + 64
}

// tryReserve sets n bytes of out's storage aside. release is nil when it
// did not; failed then says whether out could have (a regular file, a
// RoomReserver) and its storage refused, rather than that out cannot
// reserve at all (a pipe, a terminal, a device).
func tryReserve(out io.Writer, n int) (release func(), failed bool) {
	switch o := out.(type) {
	case RoomReserver:
		r, err := o.ReserveRoom(n)
		if err == nil {
			return r, false
		}
		return nil, !errors.Is(err, ErrCannotReserve)
	case *os.File:
		r, err := reserveNextTo(o, n)
		if err == nil {
			return r, false
		}
		return nil, !errors.Is(err, ErrCannotReserve)
	}
	return nil, false
}

// ErrCannotReserve is what a RoomReserver returns when its storage cannot
// set room aside at all (not a regular file); any other error is a
// reservation that failed (a full disk).
var ErrCannotReserve = errors.New("this output cannot set room aside")

// reserveNextTo is reserveBeside with its reason: n bytes of the file
// system a regular file is on, in a hidden file beside it, removed at once
// where an open file can be removed (Unix), else on release.
// ErrCannotReserve means f is no regular file.
func reserveNextTo(f *os.File, n int) (func(), error) {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, ErrCannotReserve
	}
	r, err := os.CreateTemp(filepath.Dir(f.Name()), ".mcpsnoop-reserve-*")
	if err != nil {
		return nil, fmt.Errorf("reserving room beside %s: %w", f.Name(), err)
	}
	name := r.Name()
	if _, err := r.Write(make([]byte, n)); err != nil {
		r.Close()
		os.Remove(name)
		return nil, fmt.Errorf("reserving room beside %s: %w", f.Name(), err)
	}
	removed := os.Remove(name) == nil
	return func() {
		r.Close()
		if !removed {
			os.Remove(name)
		}
	}, nil
}
