package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
)

// fillLog writes a meta frame and n short lines to a log on disk, and
// reads back what the disk holds. The lines are shorter than the closing
// frame, so that what a torn write leaves free never takes it.
func fillLog(t *testing.T, disk *capturetest.Disk, n int) (w *LogWriter, frames []Frame, lost uint64) {
	t.Helper()
	w = NewLogWriter(disk.Output(), LogOptions{SessionID: "full-1-aaaaaaaaaaaa", Label: "full", Path: "full.jsonl"})
	w.Meta(SessionMeta{Command: []string{"srv"}})
	for i := range n {
		add(w, Stderr, fmt.Sprint(i%10))
	}
	lost = w.Close()
	frames, _ = readLog(t, disk.Bytes())
	return w, frames, lost
}

// A disk with under 16 KiB free when the log opens (too little for the
// room it sets aside) still gets the closing frame when it fills up: the
// log sets aside what the closing frame takes instead. Without that, the
// frames lost at the end went uncounted: check said missing_frames=0.
func TestLogOnDiskNearlyFullAtOpen(t *testing.T) {
	disk := capturetest.NewDisk(10 << 10)
	w, frames, lost := fillLog(t, disk, 500)
	closing := frames[len(frames)-1]
	if lost == 0 || closing.Direction != Meta || closing.Dropped != lost || closing.LastSeq != 501 || w.Unreserved() || frames[0].Unreserved {
		t.Errorf("lost %d, %d frames, last %+v, unreserved %v", lost, len(frames), closing, w.Unreserved())
	}
	if gaps := seqGaps(frames); gaps != int(lost) {
		t.Errorf("%d seq gaps, %d lost", gaps, lost)
	}
}

// When not even the closing frame's room can be set aside, the log's first
// frame says so (unreserved), for check to report the log incomplete
// unless it ends with a closing frame after all.
func TestLogOnDiskFullAtOpen(t *testing.T) {
	room := closingFrameRoom("full-1-aaaaaaaaaaaa", "full", TransportStdio)
	disk := capturetest.NewDisk(room - 1) // the meta frame fits, the closing frame's room does not
	w, frames, lost := fillLog(t, disk, 20)
	if !w.Unreserved() || len(frames) == 0 || !frames[0].Unreserved || frames[0].Direction != Meta || lost == 0 {
		t.Fatalf("unreserved %v, lost %d, frames %+v", w.Unreserved(), lost, frames)
	}
	for _, f := range frames[1:] {
		if f.Unreserved {
			t.Errorf("frame %d is marked unreserved too", f.Seq)
		}
	}
	if !bytes.Contains(disk.Bytes(), []byte(`"unreserved":true}`)) {
		t.Errorf("log: %s", disk.Bytes())
	}
	// An output that cannot set room aside at all (a pipe) is not marked.
	pipe := capturetest.NewDisk(room - 1)
	pipe.NoReserve = true
	if w, frames, _ := fillLog(t, pipe, 20); w.Unreserved() || frames[0].Unreserved {
		t.Error("an output that cannot reserve is marked unreserved")
	}
}

// Room beside a regular file is a hidden file, gone from the folder at
// once (where an open file can be removed).
func TestReserveNextTo(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	release, failed := tryReserve(f, 512)
	if release == nil || failed {
		t.Fatalf("release %v failed %v", release != nil, failed)
	}
	if entries, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(entries) != 1 {
		t.Errorf("the folder holds %v", entries)
	}
	release()
}
