//go:build !windows && !(unix && !aix)

package filelock

import "os"

// Elsewhere there is no lock: callers go on without one (see ErrUnsupported).

func lock(*os.File) error { return ErrUnsupported }

func unlock(*os.File) error { return nil }

func openShared(path string) (*os.File, error) { return os.Open(path) }
