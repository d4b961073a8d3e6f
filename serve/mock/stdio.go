package mock

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// maxLine bounds one line of the client's the mock reads; a longer one is
// answered as a parse error and skipped.
const maxLine = 64 << 20

// Stdio is one conversation over MCP's stdio transport: newline-delimited
// JSON-RPC on In and Out.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// Log records the conversation; nil for none. Stdio does not close it.
	Log  *capture.LogWriter
	Name string // names it in notices ("stdio" when empty)
}

// Serve answers the client until its input ends or it stops reading (a
// write fails), or ctx is done, then waits for the requests being
// answered. A client that goes away is no error: the error is a failed
// read, or ctx's.
func (s *Stdio) Serve(ctx context.Context, e *Engine) error {
	name := s.Name
	if name == "" {
		name = "stdio"
	}
	var outMu sync.Mutex
	var outErr error
	gone := make(chan struct{}) // closed when a write fails: the client stopped reading
	write := func(msg []byte) error {
		outMu.Lock()
		defer outMu.Unlock()
		if outErr != nil {
			return outErr
		}
		line := make([]byte, 0, len(msg)+1)
		_, outErr = s.Out.Write(append(append(line, msg...), '\n'))
		if outErr != nil {
			close(gone)
		}
		return outErr
	}
	c := e.NewConversation(name, write, s.Log)
	read := make(chan error, 1)
	go func() { read <- readLines(s.In, c) }()
	var err error
	select {
	case err = <-read:
	case <-gone:
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.Close()
	c.Wait()
	return err
}

// readLines hands each line of in to c; nil at the input's end.
func readLines(in io.Reader, c *Conversation) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var scratch bytes.Buffer
	var line []byte
	skipping := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !skipping {
				line = append(line, chunk...)
				if len(line) > maxLine {
					line, skipping = nil, true
					c.send(errorResponse(nil, codeInvalidRequest, "mcpsnoop mock: a line longer than 64 MiB was skipped"))
				}
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return err
		}
		if !skipping {
			line = append(line, chunk...)
			if t := bytes.TrimSpace(line); len(t) > 0 {
				scratch.Reset()
				if raw, ok := capture.CompactJSON(t, &scratch); ok {
					t = raw
				}
				c.Receive(bytes.Clone(t), false)
			}
		}
		line, skipping = line[:0], false
		if err != nil {
			return nil
		}
	}
}
