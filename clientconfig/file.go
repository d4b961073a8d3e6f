package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// Outcome says what WrapFile or UnwrapFile did (or, on a dry run, would do).
type Outcome struct {
	// Changed is false when there was nothing to do: the server was
	// already wrapped (WrapFile) or not wrapped (UnwrapFile).
	Changed bool
	// Entry is the server's entry as it is, or would be, in the file.
	Entry []byte
	// Backup is the backup's path; BackupCreated, BackupRestored and
	// BackupRemoved say what happened to it.
	Backup         string
	BackupCreated  bool
	BackupRestored bool // unwrap wrote the backup's bytes back
	BackupRemoved  bool // nothing is wrapped any more, so it went
}

// WrapFile wraps server name in the config at path, as o says. Before the first change to the file it saves
// the file as it was to BackupPath(path), unless a backup is already there
// (it then still holds the state before any wrap). With dryRun nothing is
// written.
func WrapFile(path, name string, o WrapOptions, dryRun bool) (Outcome, error) {
	data, info, err := readConfig(path)
	if err != nil {
		return Outcome{}, err
	}
	out, changed, entry, err := Wrap(data, name, o)
	if err != nil {
		return Outcome{}, annotate(path, err)
	}
	res := Outcome{Changed: changed, Entry: entry, Backup: BackupPath(path)}
	if !changed {
		return res, nil
	}
	_, err = os.Lstat(res.Backup)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Outcome{}, fmt.Errorf("backup %s: %w", res.Backup, atomicfile.PlainError(err))
	}
	res.BackupCreated = err != nil
	if dryRun {
		return res, nil
	}
	if res.BackupCreated {
		if err := unchangedSince(path, data); err != nil {
			return Outcome{}, err
		}
		if err := atomicfile.Write(res.Backup, data, info.Mode().Perm()); err != nil {
			return Outcome{}, fmt.Errorf("saving the backup: %w", err)
		}
	}
	return res, writeConfig(path, data, out, info)
}

// UnwrapFile undoes WrapFile for server name, listed under one of keys
// (nil: AnyKey). When the result means the
// same as the backup, the backup's bytes are written back as they are, so
// the file is exactly what it was before the first wrap; once no server in
// the file runs mcpsnoop, the backup is removed. With dryRun nothing is
// written or removed.
func UnwrapFile(path, name string, keys []string, dryRun bool) (Outcome, error) {
	data, info, err := readConfig(path)
	if err != nil {
		return Outcome{}, err
	}
	out, changed, entry, err := Unwrap(data, name, keys)
	if err != nil {
		return Outcome{}, annotate(path, err)
	}
	o := Outcome{Changed: changed, Entry: entry, Backup: BackupPath(path)}
	if !changed {
		return o, nil
	}
	backup, err := os.ReadFile(o.Backup)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Outcome{}, fmt.Errorf("backup %s: %w", o.Backup, atomicfile.PlainError(err))
	}
	haveBackup := err == nil
	if haveBackup && SameConfig(out, backup) {
		out, o.BackupRestored = backup, true
	}
	o.BackupRemoved = haveBackup && !AnyWrapped(out)
	if dryRun {
		return o, nil
	}
	if err := writeConfig(path, data, out, info); err != nil {
		return Outcome{}, err
	}
	if o.BackupRemoved {
		if err := os.Remove(o.Backup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return o, fmt.Errorf("the config is restored, but its backup could not be removed: %w", err)
		}
	}
	return o, nil
}

func readConfig(path string) ([]byte, fs.FileInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
	}
	return data, info, nil
}

// writeConfig replaces the config with out, unless it no longer holds
// read (the client, an editor or another mcpsnoop wrote it meanwhile): its
// change would be lost. A config that is a symbolic link (dotfile managers
// make those) has its target replaced and stays a link (atomicfile's rule).
func writeConfig(path string, read, out []byte, info fs.FileInfo) error {
	if testHookBeforeWrite != nil {
		testHookBeforeWrite(path)
	}
	if err := unchangedSince(path, read); err != nil {
		return err
	}
	return atomicfile.Write(path, out, info.Mode().Perm())
}

// testHookBeforeWrite lets tests change the file between reading and
// writing it.
var testHookBeforeWrite func(path string)

// ErrChanged means the config changed between reading and writing it.
var ErrChanged = errors.New("changed while mcpsnoop was editing it; nothing was written, run the command again")

func unchangedSince(path string, read []byte) error {
	now, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
	}
	if !bytes.Equal(now, read) {
		return fmt.Errorf("%s %w", path, ErrChanged)
	}
	return nil
}

// annotate names the file in an error about its content; InputErrors stay
// InputErrors.
func annotate(path string, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return &InputError{msg: path + ": " + ie.msg, URL: ie.URL}
	}
	return fmt.Errorf("%s: %w", path, err)
}
