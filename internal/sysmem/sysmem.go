// Package sysmem tells how much memory and how many open files this
// process may use: what a command that reads many inputs at once needs to
// size its parallelism. Each answer says whether it could be told.
package sysmem

import (
	"math"
	"runtime/debug"
)

// Budget is the memory a process should keep to: the runtime's soft
// limit when one is set (GOMEMLIMIT, or debug.SetMemoryLimit), else half
// of the memory it can have (Total), else 0 when neither can be told.
func Budget() uint64 {
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return uint64(limit)
	}
	if total, ok := Total(); ok {
		return total / 2
	}
	return 0
}
