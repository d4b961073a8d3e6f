//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Ctrl-C while the progress line is up erases it before check ends, so the
// next line (the shell's prompt) starts clean; the exit status is the
// shell's 128+SIGINT. check reads a big log (the line is drawn), then
// waits on a FIFO no one writes, in a real terminal (tmux).
func TestProgressLineErasedOnInterrupt(t *testing.T) {
	bin := mcpsnoopBinary(t)
	dir := t.TempDir()
	log := bigLog(t, dir)
	fifo := filepath.Join(dir, "more.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The trap keeps the shell alive for its echo; a trap (unlike an
	// ignored signal) is not passed on to check.
	tt := startTmux(t, "trap true INT; MCPSNOOP_HOME="+shellQuote(t.TempDir())+" "+shellQuote(bin)+" check "+shellQuote(log)+" "+shellQuote(fifo))
	tt.waitFor("reading ", " MB of ")
	tt.keys("C-c")
	s := tt.waitFor("viewer exited 130")
	for _, l := range strings.Split(s, "\n") {
		// The terminal echoes ^C where the cursor was, past the line (or
		// partly under it, when the line was drawn once more before check
		// took the signal): what may be left of it is the terminal's; what
		// must not be is any of the progress line's words.
		if strings.Contains(l, "viewer exited") && (!strings.HasPrefix(l, "viewer exited 130") || strings.Contains(l, "reading") || strings.Contains(l, "MB")) {
			t.Errorf("the progress line was left on screen: %q", l)
		}
	}
}
