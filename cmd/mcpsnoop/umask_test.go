package main

import (
	"os"
	"path/filepath"
)

// currentUmask is the process's umask, as a folder made with 0777 shows
// it (syscall.Umask would change it for every test running meanwhile).
func currentUmask() os.FileMode {
	dir, err := os.MkdirTemp("", "umask-")
	if err != nil {
		return 0o022
	}
	defer os.RemoveAll(dir)
	probe := filepath.Join(dir, "d")
	if os.Mkdir(probe, 0o777) != nil {
		return 0o022
	}
	info, _ := os.Stat(probe)
	return 0o777 &^ info.Mode().Perm()
}
