package capture

import (
	"os"
	"runtime/debug"
)

// MemoryTarget is the heap a capture keeps itself to when the runtime is
// left to choose (GOMEMLIMIT unset). What a capture holds is bounded (the
// write queue's QueueBytes, one open line of MaxLogLine a direction, the
// frame being written), but the garbage collector lets the heap grow to
// twice what is live before it collects: with 16 MiB lines on every
// channel at once that passed 400 MB. A soft limit makes it collect
// sooner as the heap nears the target instead; it is not a cap (a capture
// that truly holds more goes past it rather than fail).
const MemoryTarget = 192 << 20

// BoundMemory sets the runtime's soft memory limit to MemoryTarget, unless
// GOMEMLIMIT is set (then the user's limit stands). The captures' commands
// call it once at their start.
func BoundMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryTarget)
	}
}
