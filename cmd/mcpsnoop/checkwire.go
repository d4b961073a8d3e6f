package main

import (
	"os"
	"runtime/debug"
)

// wireGCTarget undoes check's lowered GC target when frames are validated:
// the validator's garbage is short-lived (a few KB a frame), so collecting
// twice as often would cost a sixth of the time and save little memory;
// the live heap stays bounded either way. An explicit GOGC wins.
func wireGCTarget() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}
