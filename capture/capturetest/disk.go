// Package capturetest holds fakes for testing captures: a log file on a
// disk that fills up. It imports nothing of mcpsnoop, so that every capture
// package can use it in its tests.
package capturetest

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"syscall"
)

// Disk is a log file on a disk that holds Size bytes: a write that does not
// fit writes what fits and fails with ENOSPC, as a file system does. It
// can be cut back (Seek to the end, Truncate), like a regular file, unless
// NoCut is set, and can set room aside (ReserveRoom, as
// capture.RoomReserver) unless NoReserve is set. Use it through Output.
type Disk struct {
	mu        sync.Mutex
	data      []byte
	size      int
	reserved  int
	closed    bool
	NoCut     bool
	NoReserve bool
}

// NewDisk returns an empty file on a disk of size bytes.
func NewDisk(size int) *Disk { return &Disk{size: size} }

// Resize changes what the disk holds (a disk that frees up).
func (d *Disk) Resize(size int) {
	d.mu.Lock()
	d.size = size
	d.mu.Unlock()
}

// Bytes is what the file holds.
func (d *Disk) Bytes() []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return bytes.Clone(d.data)
}

// Closed reports whether the file was closed.
func (d *Disk) Closed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// Output is the file as a log writer sees it: with exactly the methods the
// disk's settings allow.
func (d *Disk) Output() io.WriteCloser {
	switch {
	case d.NoCut:
		return plain{d}
	case d.NoReserve:
		return cuttable{plain{d}}
	}
	return reserving{cuttable{plain{d}}}
}

func (d *Disk) write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	room := max(d.size-d.reserved-len(d.data), 0)
	if len(p) <= room {
		d.data = append(d.data, p...)
		return len(p), nil
	}
	d.data = append(d.data, p[:room]...)
	return room, syscall.ENOSPC
}

type plain struct{ d *Disk }

func (p plain) Write(b []byte) (int, error) { return p.d.write(b) }

func (p plain) Close() error {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	p.d.closed = true
	return nil
}

type cuttable struct{ plain }

func (c cuttable) Seek(offset int64, whence int) (int64, error) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	if offset != 0 || whence != io.SeekEnd {
		return 0, errors.New("capturetest: only Seek(0, io.SeekEnd)")
	}
	return int64(len(c.d.data)), nil
}

func (c cuttable) Truncate(size int64) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	if size < 0 || size > int64(len(c.d.data)) {
		return errors.New("capturetest: truncate out of range")
	}
	c.d.data = c.d.data[:size]
	return nil
}

type reserving struct{ cuttable }

func (r reserving) ReserveRoom(n int) (func(), error) {
	d := r.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.size-d.reserved-len(d.data) < n {
		return nil, syscall.ENOSPC
	}
	d.reserved += n
	return func() {
		d.mu.Lock()
		d.reserved -= n
		d.mu.Unlock()
	}, nil
}
