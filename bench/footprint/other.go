//go:build !linux

// Command footprint measures a stdio shim's peak memory and start-up on
// Linux, from /proc; see main.go.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "footprint: measures peak RSS from /proc (VmHWM, smaps_rollup) and start-up with CLOCK_MONOTONIC: Linux only; nothing measured here")
}
