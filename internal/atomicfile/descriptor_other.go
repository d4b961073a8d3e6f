//go:build !unix

package atomicfile

import (
	"fmt"
	"io"
)

// openDescriptor refuses descriptors past 2 where /dev/fd/N has no meaning.
func openDescriptor(t Target) (io.Writer, error) {
	return nil, fmt.Errorf("write %s: only descriptors 1 and 2 (/dev/stdout, /dev/stderr) can be named on this system", t.Name)
}
