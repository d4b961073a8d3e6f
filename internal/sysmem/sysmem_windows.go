package sysmem

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is Windows' MEMORYSTATUSEX.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// Total is the machine's physical memory.
func Total() (uint64, bool) {
	ms := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms))); r == 0 {
		return 0, false
	}
	return ms.totalPhys, ms.totalPhys > 0
}

// OpenFiles cannot be told on Windows, which has no such limit per
// process that matters here.
func OpenFiles() (uint64, bool) { return 0, false }
