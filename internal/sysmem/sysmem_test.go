package sysmem

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestBudget(t *testing.T) {
	total, ok := Total()
	if (runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "windows") && (!ok || total < 64<<20) {
		t.Fatalf("Total() = %d, %v", total, ok)
	}
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(1 << 30)
	if b := Budget(); b != 1<<30 {
		t.Errorf("with a 1 GiB limit, Budget() = %d", b)
	}
	debug.SetMemoryLimit(old)
	if b := Budget(); ok && b != total/2 {
		t.Errorf("without a limit, Budget() = %d, want half of %d", b, total)
	}
}
