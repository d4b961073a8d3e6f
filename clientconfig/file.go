package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
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
	BackupRestored bool // unwrap left the file exactly as the backup holds it
	BackupRemoved  bool // nothing is wrapped any more, so it went
}

// A config is edited by one mcpsnoop at a time: WrapFile and UnwrapFile
// hold an advisory lock on the file (package filelock) from reading it to
// writing it, so forty wraps of one file at once each land. Before writing
// they read it again and write nothing when it changed (an editor, or the
// client, that takes no lock). A read-only file is refused. A file with
// other hard links is written in place, so that every name keeps seeing
// it; before that, a backup of it is made and read back.

// WrapFile wraps server name in the config at path, as o says. Before the first change to the file it saves
// the file as it was to BackupPath(path), unless a backup is already there
// (it then still holds the state before any wrap). With dryRun nothing is
// written.
func WrapFile(path, name string, o WrapOptions, dryRun bool) (Outcome, error) {
	c, err := openConfig(path, dryRun)
	if err != nil {
		return Outcome{}, err
	}
	defer c.close()
	out, changed, entry, err := Wrap(c.data, name, o)
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
	if err := c.writable(); err != nil {
		return Outcome{}, err
	}
	if res.BackupCreated {
		if err := unchangedSince(path, c.data); err != nil {
			return Outcome{}, err
		}
		if err := c.saveBackup(res.Backup); err != nil {
			return Outcome{}, err
		}
	}
	return res, c.write(out)
}

// UnwrapFile undoes WrapFile for server name, listed under one of keys
// (nil: AnyKey): it takes out what wrap put in the entry and keeps every
// edit made since, comments included. When the entry is still exactly
// what wrap made of it, it gets back the bytes the backup holds for it
// (wrap may have re-encoded it). Once no server in the file runs
// mcpsnoop, the backup is removed. With dryRun nothing is written or
// removed.
func UnwrapFile(path, name string, keys []string, dryRun bool) (Outcome, error) {
	c, err := openConfig(path, dryRun)
	if err != nil {
		return Outcome{}, err
	}
	defer c.close()
	out, changed, entry, err := Unwrap(c.data, name, keys)
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
	if haveBackup {
		out = restoreFromBackup(c.data, out, backup, name, keys)
		o.BackupRestored = bytes.Equal(out, backup)
	}
	o.BackupRemoved = haveBackup && !AnyWrapped(out)
	if dryRun {
		return o, nil
	}
	if err := c.writable(); err != nil {
		return Outcome{}, err
	}
	if err := c.write(out); err != nil {
		return Outcome{}, err
	}
	if o.BackupRemoved {
		if err := os.Remove(o.Backup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return o, fmt.Errorf("the config is restored, but its backup could not be removed: %w", err)
		}
	}
	return o, nil
}

// config is a config file read for an edit: with the lock held unless it
// is a dry run.
type config struct {
	path string
	f    *os.File // holds the lock; nil on a dry run
	data []byte
	info fs.FileInfo
}

func openConfig(path string, dryRun bool) (*config, error) {
	if dryRun {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
		}
		return &config{path: path, data: data}, nil
	}
	f, err := filelock.OpenLocked(path, filelock.Open)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
	}
	c := &config{path: path, f: f}
	if c.info, err = f.Stat(); err == nil {
		c.data, err = io.ReadAll(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, atomicfile.PlainError(err))
	}
	return c, nil
}

// close lets go of the lock.
func (c *config) close() {
	if c.f != nil {
		c.f.Close()
	}
}

// ErrReadOnly means the config is read-only: mcpsnoop leaves a file the
// user protected as it is.
var ErrReadOnly = errors.New("is read-only, so mcpsnoop leaves it as it is; make it writable (chmod u+w) to let mcpsnoop edit it")

// writable refuses a read-only file (no write permission for its owner,
// or the read-only attribute on Windows). Replacing it by a rename would
// work in a writable folder, which is why it must be asked.
func (c *config) writable() error {
	if c.info.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s %w", c.path, ErrReadOnly)
	}
	return nil
}

// saveBackup writes the file as read to backup, which must not exist, and
// reads it back: an edit in place relies on it.
func (c *config) saveBackup(backup string) error {
	created, err := atomicfile.WriteNew(backup, c.data, c.info.Mode().Perm())
	if err != nil {
		return fmt.Errorf("saving the backup: %w", err)
	}
	if !created {
		return fmt.Errorf("saving the backup: %s appeared meanwhile; nothing was written, run the command again", backup)
	}
	return verifyBackup(backup, c.data)
}

// verifyBackup reads backup back: it must hold want, or, when want is nil,
// be a config mcpsnoop can read.
func verifyBackup(backup string, want []byte) error {
	got, err := os.ReadFile(backup)
	if err == nil {
		switch {
		case want != nil && !bytes.Equal(got, want):
			err = errors.New("it does not read back as written")
		case want == nil:
			_, err = parse(got, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("backup %s: %w; nothing was written", backup, atomicfile.PlainError(err))
	}
	return nil
}

// write replaces the config with out, unless it no longer holds what was
// read (the client or an editor, which take no lock, wrote it meanwhile):
// their change would be lost. A config that is a symbolic link (dotfile
// managers make those) has its target replaced and stays a link
// (atomicfile's rule). A config with other hard links is written in place
// (see writeInPlace).
func (c *config) write(out []byte) error {
	if testHookBeforeWrite != nil {
		testHookBeforeWrite(c.path)
	}
	if err := unchangedSince(c.path, c.data); err != nil {
		return err
	}
	if linkCount(c.f) > 1 {
		return c.writeInPlace(out)
	}
	return c.replace(out)
}

// writeInPlace overwrites the file itself, since a rename would give this
// name a new file and leave the other names with the old one. A write in
// place can be torn by a crash, so a backup must be there first: the one
// wrap keeps (read back to check it), or, when there is none, a copy of
// the file as it is now, made for this write and removed after it.
func (c *config) writeInPlace(out []byte) error {
	backup := BackupPath(c.path)
	var transient bool
	if _, err := os.Lstat(backup); err == nil {
		if err := verifyBackup(backup, nil); err != nil {
			return err
		}
	} else {
		if err := c.saveBackup(backup); err != nil {
			return err
		}
		transient = true
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", c.path, atomicfile.PlainError(err))
	}
	_, err = f.WriteAt(out, 0)
	if err == nil {
		err = f.Truncate(int64(len(out)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: writing it in place failed (%w); the file before this edit is in %s", c.path, atomicfile.PlainError(err), backup)
	}
	if transient {
		os.Remove(backup)
	}
	return nil
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
