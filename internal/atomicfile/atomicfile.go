// Package atomicfile writes files so that readers never see half of one: the
// content goes to a temporary file in the target's folder, which is then
// renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one file to write.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode
}

// Write replaces path with data, atomically.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteAll([]File{{Path: path, Data: data, Perm: perm}})
}

// WriteAll writes several files as one step as far as a file system allows:
// every target is checked and every temporary file written before the first
// rename, so a bad path or a full disk leaves all targets as they were.
func WriteAll(files []File) error {
	for _, f := range files {
		if err := checkTarget(f.Path); err != nil {
			return err
		}
	}
	temps := make([]string, 0, len(files))
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, f := range files {
		tmp, err := writeTemp(f)
		if err != nil {
			cleanup()
			return err
		}
		temps = append(temps, tmp)
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.Path); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", f.Path, PlainError(err))
		}
	}
	return nil
}

// checkTarget fails early, with a plain reason, on a path that cannot be
// written: a missing folder, or a directory where the file should go.
func checkTarget(path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("write %s: folder %s: %w", path, dir, PlainError(err))
	case !info.IsDir():
		return fmt.Errorf("write %s: %s is not a folder", path, dir)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("write %s: is a directory", path)
	}
	return nil
}

// WriteNew writes data to path unless a file is there already, in which
// case created is false and nothing changes. Like Write, no reader sees the
// file half written: the data goes to a temporary file in the folder, which
// is then hard-linked to path (a link, unlike a rename, fails when the name
// exists).
func WriteNew(path string, data []byte, perm os.FileMode) (created bool, err error) {
	tmp, err := writeTemp(File{Path: path, Data: data, Perm: perm})
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("write %s: %w", path, PlainError(err))
	}
	return true, nil
}

func writeTemp(f File) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", f.Path, PlainError(err))
	}
	name := tmp.Name()
	_, err = tmp.Write(f.Data)
	if err == nil {
		err = tmp.Chmod(f.Perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", f.Path, PlainError(err))
	}
	return name, nil
}

// PlainError strips the file name an OS error carries (*fs.PathError,
// *os.LinkError), for messages that name the file their own way: users
// never saw a temporary file's name.
func PlainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
