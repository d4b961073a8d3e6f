//go:build !unix && !windows

package clientconfig

import "os"

// linkCount cannot be told here: every file is taken to have one name.
func linkCount(*os.File) uint64 { return 1 }
