package main

import (
	"io"
	"os"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/progress"
)

// stderrIsTerminal reports whether w, a command's stderr, is a terminal:
// the progress line is drawn only there (a test hook).
var stderrIsTerminal = progress.IsTerminal

// inputsSize is how many bytes the inputs that are files hold; standard
// input and what cannot be looked at (reading it says what is wrong) add
// nothing.
func inputsSize(inputs []capture.Input) int64 {
	var total int64
	for _, in := range inputs {
		if in.Stdin {
			continue
		}
		if info, err := os.Stat(in.Path); err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
	}
	return total
}

// showReading draws the progress line of reading inputs on stderr while
// they are read, when it is a terminal and they are big (progress.Shown):
// it counts what the files read (their Count) and returns what ends the
// line, to call before anything else is written to stderr.
func showReading(stderr io.Writer, inputs []capture.Input) (stop func()) {
	total := inputsSize(inputs)
	if !progress.Shown(stderrIsTerminal(stderr), total) {
		return func() {}
	}
	read := new(atomic.Int64)
	for i := range inputs {
		if !inputs[i].Stdin {
			inputs[i].Count = read
		}
	}
	return progress.Start(stderr, true, total, read).Stop
}
