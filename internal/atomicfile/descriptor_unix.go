//go:build unix

package atomicfile

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// descriptors keeps every *os.File made for a descriptor reachable: an
// *os.File closes its descriptor when it is collected, and the descriptor
// is the process's (handed down by its parent), not ours to close.
var descriptors struct {
	sync.Mutex
	files map[int]*os.File
}

// openDescriptor is descriptor t.FD (3 and up), which must be open.
func openDescriptor(t Target) (io.Writer, error) {
	descriptors.Lock()
	defer descriptors.Unlock()
	if f := descriptors.files[t.FD]; f != nil {
		return f, nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(t.FD, &st); err != nil {
		return nil, fmt.Errorf("write %s: descriptor %d is not open", t.Name, t.FD)
	}
	f := os.NewFile(uintptr(t.FD), t.Name)
	if descriptors.files == nil {
		descriptors.files = map[int]*os.File{}
	}
	descriptors.files[t.FD] = f
	return f, nil
}
