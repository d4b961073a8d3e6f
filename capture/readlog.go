package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// Open opens an input for reading: the file, or stdin as given. A directory
// or an unreadable file is an error naming the input. What is read is
// added to in.Count, when set.
func (in Input) Open(stdin io.Reader) (io.ReadCloser, error) {
	src, err := in.open(stdin)
	if err != nil || in.Count == nil {
		return src, err
	}
	return &counting{ReadCloser: src, n: in.Count}, nil
}

// counting adds what it reads to n.
type counting struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *counting) Read(p []byte) (int, error) {
	k, err := c.ReadCloser.Read(p)
	c.n.Add(int64(k))
	return k, err
}

func (in Input) open(stdin io.Reader) (io.ReadCloser, error) {
	if in.Stdin {
		return io.NopCloser(stdin), nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, atomicfile.PlainError(err))
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", in.Name, atomicfile.PlainError(err))
	}
	if info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", in.Name)
	}
	return f, nil
}

// Read opens the input (stdin as given), applies red to every envelope
// (nil for none; the log itself is never changed) and reads it whole with
// ReadLog: the one loop check, export and the viewer read logs with.
func (in Input) Read(stdin io.Reader, red *Redactor, each func(f *Frame, line int) bool, lost func()) error {
	src, err := in.Open(stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	return ReadLog(src, in.Name, func(f *Frame, line int) bool {
		red.Apply(f)
		return each(f, line)
	}, lost)
}

// ReadLog reads a whole log and hands each envelope to each with its line;
// each reports whether the envelope belonged to a session. A torn line, in
// the middle of the log or at its end, is one lost frame: lost is called for
// it once an envelope was accepted (before that there is no session to lose
// it from). So is a line that cannot be read (ErrUnreadableLine) once an
// envelope was accepted: the read goes on past it. Before that such a line
// is the error (the input is no log), as is a log in which no envelope was
// accepted, "no envelopes found". ReadLogHooks says more about unreadable
// lines.
func ReadLog(src io.Reader, name string, each func(f *Frame, line int) bool, lost func()) error {
	return ReadLogHooks(src, name, each, ReadHooks{Lost: lost})
}

// ReadHooks are told what a read met besides envelopes.
type ReadHooks struct {
	// Lost is called for a torn line, and for an unreadable one when
	// Unreadable is nil: one lost frame.
	Lost func()
	// Unreadable is called for a line that cannot be read, after the
	// first envelope was accepted, with the reader's error (a *LineError
	// naming the input and the line); the read goes on past it.
	Unreadable func(line int, err error)
}

// ReadLogHooks is ReadLog with hooks for what is not an envelope.
func ReadLogHooks(src io.Reader, name string, each func(f *Frame, line int) bool, h ReadHooks) error {
	r := NewReader(src, name)
	accepted := 0
	lost := func() {
		if accepted > 0 && h.Lost != nil {
			h.Lost()
		}
	}
	for {
		f, line, err := r.Next()
		switch {
		case err == io.EOF:
		case errors.Is(err, ErrTornLine):
			lost()
			continue
		case errors.Is(err, ErrTornTail):
			lost()
		case errors.Is(err, ErrUnreadableLine) && accepted > 0:
			if h.Unreadable == nil {
				lost()
				continue
			}
			var le *LineError
			if errors.As(err, &le) {
				line = le.Line
			}
			h.Unreadable(line, err)
			continue
		case err != nil:
			return err
		default:
			if each(&f, line) {
				accepted++
			}
			continue
		}
		break
	}
	if accepted == 0 {
		return fmt.Errorf("%s: no envelopes found", name)
	}
	return nil
}
