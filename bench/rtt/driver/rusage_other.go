//go:build !unix

package main

import "os"

// maxRSSKB is not known here.
func maxRSSKB(*os.ProcessState) int64 { return 0 }
