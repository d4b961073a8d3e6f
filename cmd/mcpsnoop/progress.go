package main

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

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
	return startReading(stderr, inputs, "").stop
}

// reading is a progress line of reading inputs (showReading), which can
// also let other lines out on stderr while it is up (say).
type reading struct {
	stderr io.Writer
	line   *progress.Line // nil: nothing is shown
	stop   func()         // ends the line; more calls do nothing
}

// startReading is showReading for a read named by prefix (see
// progress.StartFor), or the main one for "".
func startReading(stderr io.Writer, inputs []capture.Input, prefix string) *reading {
	r := &reading{stderr: stderr, stop: func() {}}
	total := inputsSize(inputs)
	if !progress.Shown(stderrIsTerminal(stderr), total) {
		return r
	}
	read := new(atomic.Int64)
	for i := range inputs {
		if !inputs[i].Stdin {
			inputs[i].Count = read
		}
	}
	r.line = progress.StartFor(stderr, true, prefix, total, read)
	var once sync.Once
	end := func() { once.Do(r.line.Stop) }
	// Interrupted while the line is up (Ctrl-C on a long read): erase it
	// before the process ends, so the shell's prompt starts a clean line.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			end()
			os.Exit(128 + signalNumber(sig))
		case <-done:
		}
	}()
	var stopOnce sync.Once
	r.stop = func() {
		stopOnce.Do(func() {
			signal.Stop(sigs)
			close(done)
			end()
		})
	}
	return r
}

// say writes msg (whole lines) to stderr, above the line when it is up.
func (r *reading) say(msg string) {
	if r.line == nil {
		io.WriteString(r.stderr, msg)
		return
	}
	r.line.Say(msg)
}

// signalNumber is sig's number, for the shell's 128+N exit status.
func signalNumber(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return int(n)
	}
	return 2
}
