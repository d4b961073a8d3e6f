package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrTornTail is returned by Reader.Next when the log's last line has no
// newline and does not hold a complete envelope: the writer was killed in the
// middle of a line. It is one lost frame, not a broken log.
var ErrTornTail = errors.New("torn last line (the writer stopped mid-line)")

// ErrTornLine is returned by Reader.Next for a line in the middle of a log
// that holds only the start of an envelope, followed by a new envelope: a
// writer was killed mid-line and another appended after it. It is one lost
// frame; the line number returned with it is the torn line's, and reading
// can go on.
var ErrTornLine = errors.New("torn line (the writer stopped mid-line; later frames were appended)")

// ErrUnreadableLine is what every error Reader.Next returns about a line
// (or an envelope spanning lines) that is no readable envelope matches
// with errors.Is: not JSON, not an object, nested too deep, a member of
// the wrong type, too long. The error names the input and the line; the
// reader has moved past the line, and reading can go on. Errors that do
// not match it (reading the input failed) end the read.
var ErrUnreadableLine = errors.New("unreadable line")

// LineError is an unreadable line: see ErrUnreadableLine.
type LineError struct {
	Line int // where the bad value starts, counted from 1
	msg  string
}

func (e *LineError) Error() string { return e.msg }

// Is makes a LineError match ErrUnreadableLine.
func (e *LineError) Is(target error) bool { return target == ErrUnreadableLine }

// MaxEnvelope bounds one envelope and one line, so that hostile input cannot
// make the reader hold an unbounded amount of memory. It is far above the
// largest frame a capture writes (16 MiB of payload, escaped).
const MaxEnvelope = 256 << 20

// readChunk is how much the reader asks its source for at a time.
const readChunk = 1 << 20

// Reader streams the envelopes of a session log. Writers put one envelope
// on a line; like other readers of the format it also accepts blank lines,
// several envelopes on one line and an envelope spanning lines. Memory use is
// bounded by the longest envelope, never by the log's size.
type Reader struct {
	src  io.Reader
	name string

	buf        []byte // read buffer; buf[start:end] is not yet consumed
	start, end int
	eof        bool
	readErr    error

	line int // lines consumed so far

	// Slow-path state: an envelope that did not fit the one-line fast path.
	acc       []byte // bytes of the value(s) being assembled, lines joined by '\n'
	accLine   int    // line on which acc starts
	scan      valueScanner
	nextCheck int  // acc size at which the open value is next checked as a JSON prefix
	lastNoEOL bool // the line just consumed had no trailing newline (end of input)
	// skipLine: the line at start was refused before it was read whole;
	// the next call drops what is left of it first.
	skipLine bool
}

// firstPrefixCheck is the size of an open value at which the reader first
// checks that it is still a valid JSON prefix; the threshold then doubles, so
// checking stays linear. It stops a torn line in the middle of a log from
// swallowing the rest of the file.
const firstPrefixCheck = 64 << 10

// NewReader returns a Reader over src. name identifies the input in errors
// (a path, or "stdin").
func NewReader(src io.Reader, name string) *Reader {
	return &Reader{src: src, name: name}
}

// Name is the input's name as given to NewReader.
func (r *Reader) Name() string { return r.name }

// Next returns the next envelope and the 1-based line on which it ends. At
// the end of the log it returns io.EOF; for a torn last line, ErrTornTail
// (after which the reader is exhausted). Any other error names the input and
// the line where the bad value starts, and ends the read.
func (r *Reader) Next() (Frame, int, error) {
	if r.skipLine {
		r.skipLine = false
		if err := r.dropLine(); err != nil {
			return Frame{}, 0, err
		}
	}
	for {
		if len(r.acc) > 0 {
			f, line, done, err := r.continueSlow()
			if err != nil && !errors.Is(err, ErrTornLine) {
				// What was assembled is dropped: reading goes on with
				// the next line.
				r.acc, r.scan, r.nextCheck = nil, valueScanner{}, firstPrefixCheck
			}
			if err != nil || done {
				return f, line, err
			}
			continue
		}
		if err := r.lineStart(); err != nil {
			return Frame{}, 0, err
		}
		line, ok, err := r.nextLine()
		if err != nil {
			return Frame{}, 0, err
		}
		if !ok {
			return Frame{}, 0, io.EOF
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		f, valid, err := decodeEnvelope(trimmed)
		if valid {
			if err != nil {
				return Frame{}, 0, r.errorf(r.line, "%v", err)
			}
			return f, r.line, nil
		}
		// Not one envelope: scan it where it is, and copy it aside only
		// when more must be read to know (the value goes on past the line,
		// or the line holds several).
		var sc valueScanner
		end, state := sc.run(trimmed)
		switch {
		case state == scanBad:
			return Frame{}, 0, r.syntaxError(trimmed[:end], r.line)
		case state == scanOpen && r.lastNoEOL:
			return Frame{}, 0, ErrTornTail
		case state == scanOpen && len(trimmed) >= firstPrefixCheck && prefixError(trimmed[:min(len(trimmed), 16*firstPrefixCheck)]) != nil:
			// A long line of garbage after a '{': no need to keep it.
			return Frame{}, 0, r.syntaxError(trimmed[:min(len(trimmed), 16*firstPrefixCheck)], r.line)
		case state != scanOpen:
			sc = valueScanner{} // the slow path reads the line's values one by one
		}
		r.acc = append(r.acc[:0], trimmed...)
		r.accLine = r.line
		r.scan = sc
		r.nextCheck = max(firstPrefixCheck, 2*len(trimmed))
	}
}

// continueSlow assembles values from acc, pulling more lines when a value is
// still open. done reports that a frame (or an error) is being returned.
func (r *Reader) continueSlow() (Frame, int, bool, error) {
	for {
		// Skip whitespace left between values.
		i := 0
		for i < len(r.acc) && isWS(r.acc[i]) {
			if r.acc[i] == '\n' {
				r.accLine++
			}
			i++
		}
		if i > 0 {
			r.acc = r.acc[i:]
			r.scan.pos = 0
		}
		if len(r.acc) == 0 {
			r.acc = r.acc[:0]
			return Frame{}, 0, false, nil
		}
		if r.acc[0] != '{' {
			return Frame{}, 0, true, r.badValue(r.acc, r.accLine)
		}
		end, state := r.scan.run(r.acc)
		switch state {
		case scanDone:
			value := r.acc[:end]
			endLine := r.accLine + bytes.Count(value, []byte{'\n'})
			f, valid, err := decodeEnvelope(value)
			if !valid {
				return Frame{}, 0, true, r.syntaxError(value, r.accLine)
			}
			if err != nil {
				return Frame{}, 0, true, r.errorf(r.accLine, "%v", err)
			}
			r.acc = r.acc[end:]
			r.accLine = endLine
			r.scan = valueScanner{}
			r.nextCheck = firstPrefixCheck
			if len(bytes.TrimSpace(r.acc)) == 0 {
				r.acc = nil
			}
			return f, endLine, true, nil
		case scanBad:
			return Frame{}, 0, true, r.syntaxError(r.acc[:end], r.accLine)
		}
		// Still open: pull the next line.
		line, ok, err := r.nextLine()
		if err != nil {
			return Frame{}, 0, true, err
		}
		if !ok {
			startedOnLast := r.accLine == r.line && r.lastNoEOL
			r.acc = nil
			if startedOnLast {
				return Frame{}, 0, true, ErrTornTail
			}
			return Frame{}, 0, true, r.errorf(r.accLine, "invalid JSONL envelope: unexpected end of input (an envelope starting here is never closed)")
		}
		if torn := bytes.TrimSpace(line); bytes.HasPrefix(torn, []byte(`{"session_id"`)) && r.accLine == r.line-1 && prefixError(r.acc) == nil {
			// The open envelope was cut short on its own line and a new
			// envelope starts on the next: a writer was killed mid-line and
			// a later run appended to the same log. One frame is lost; the
			// reading goes on with the new line.
			tornAt := r.accLine
			r.acc = append(r.acc[:0], torn...)
			r.accLine = r.line
			r.scan = valueScanner{}
			r.nextCheck = firstPrefixCheck
			return Frame{}, tornAt, true, ErrTornLine
		}
		if len(r.acc)+len(line) > MaxEnvelope {
			return Frame{}, 0, true, r.errorf(r.accLine, "invalid JSONL envelope: an envelope starting here runs past %d MiB without closing", MaxEnvelope>>20)
		}
		r.acc = append(r.acc, '\n')
		r.acc = append(r.acc, line...)
		if len(r.acc) >= r.nextCheck {
			r.nextCheck = 2 * len(r.acc)
			if err := prefixError(r.acc); err != nil {
				return Frame{}, 0, true, r.syntaxError(r.acc, r.accLine)
			}
		}
	}
}

// prefixError reports a syntax error in b, which may be cut short: running
// out of input is not an error here.
func prefixError(b []byte) error {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(b)).Decode(&v)
	if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// refusePrefix is how much of a line that cannot be a frame the reader
// reads to say what it is.
const refusePrefix = 64 << 10

// lineStart looks at the first byte of the next line that is not a blank
// (space, tab, CR), before the line is read whole. Blanks at the start of a
// line are dropped as they come: they are part of no frame. A line that
// starts with anything but '{' (or ends there: a blank line) cannot hold a
// frame and is refused at once, from at most refusePrefix of its bytes, so
// that a line that never ends (check /dev/zero) is never buffered.
func (r *Reader) lineStart() error {
	for {
		i := r.start
		for i < r.end && (r.buf[i] == ' ' || r.buf[i] == '\t' || r.buf[i] == '\r') {
			i++
		}
		r.start = i
		if i < r.end {
			if c := r.buf[i]; c == '{' || c == '\n' {
				return nil
			}
			return r.refuseLine()
		}
		if r.eof {
			return nil
		}
		r.fill()
	}
}

// refuseLine reports a line that does not start an object, from its first
// bytes: as badValue does when the line ends within refusePrefix bytes,
// else by what its first byte starts.
func (r *Reader) refuseLine() error {
	for !r.eof && r.end-r.start < refusePrefix && bytes.IndexByte(r.buf[r.start:r.end], '\n') < 0 {
		r.fill()
	}
	if r.readErr != nil {
		return fmt.Errorf("%s: %w", r.name, r.readErr)
	}
	prefix := r.buf[r.start:min(r.end, r.start+refusePrefix)]
	line := r.line + 1
	r.skipLine = true // whatever is said of it, the line is dropped next
	if nl := bytes.IndexByte(prefix, '\n'); nl >= 0 {
		return r.badValue(bytes.TrimSpace(prefix[:nl]), line)
	} else if r.eof && r.end-r.start <= refusePrefix {
		return r.badValue(bytes.TrimSpace(prefix), line)
	}
	kind := ""
	switch c := prefix[0]; {
	case c == '[':
		kind = "an array"
	case c == '"':
		kind = "a string"
	case c == '-' || c >= '0' && c <= '9':
		kind = "a number"
	case bytes.HasPrefix(prefix, []byte("true")) || bytes.HasPrefix(prefix, []byte("false")):
		kind = "a boolean"
	case bytes.HasPrefix(prefix, []byte("null")):
		kind = "null"
	default:
		return r.syntaxError(prefix[:1], line)
	}
	return r.errorf(line, "invalid JSONL envelope: expected a JSON object, got %s (a line of more than %d KiB, not read whole)", kind, refusePrefix>>10)
}

// nextLine returns the next line without its terminator. ok is false at the
// end of input.
func (r *Reader) nextLine() (line []byte, ok bool, err error) {
	searched := 0
	for {
		if i := bytes.IndexByte(r.buf[r.start+searched:r.end], '\n'); i >= 0 {
			nl := r.start + searched + i
			line = r.buf[r.start:nl]
			r.start = nl + 1
			r.line++
			r.lastNoEOL = false
			return line, true, nil
		}
		searched = r.end - r.start
		if searched > MaxEnvelope {
			err := r.errorf(r.line+1, "line is longer than %d MiB", MaxEnvelope>>20)
			r.start = r.end // what was read of it is dropped, the rest on the next call
			r.skipLine = true
			return nil, false, err
		}
		if r.eof {
			if r.readErr != nil {
				return nil, false, fmt.Errorf("%s: %w", r.name, r.readErr)
			}
			if r.start == r.end {
				return nil, false, nil
			}
			line = r.buf[r.start:r.end]
			r.start = r.end
			r.line++
			r.lastNoEOL = true
			return line, true, nil
		}
		r.fill()
	}
}

// fill reads more input, compacting or growing the buffer as needed.
func (r *Reader) fill() {
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.start, r.end = 0, n
	}
	if len(r.buf)-r.end < readChunk {
		// Doubling, but never past what one line may take: a line is
		// refused once it passes MaxEnvelope.
		grown := make([]byte, min(max(2*len(r.buf), r.end+readChunk), MaxEnvelope+readChunk))
		copy(grown, r.buf[:r.end])
		r.buf = grown
	}
	n, err := r.src.Read(r.buf[r.end:])
	r.end += n
	if err != nil {
		r.eof = true
		if err != io.EOF {
			r.readErr = err
		}
	}
}

// errorf describes an unreadable line (a *LineError).
func (r *Reader) errorf(line int, format string, args ...any) error {
	return &LineError{Line: line, msg: fmt.Sprintf("%s: line %d: %s", r.name, line, fmt.Sprintf(format, args...))}
}

// dropLine consumes input up to and including the next newline, without
// keeping it: the rest of a line that was refused from its start. The
// buffer does not grow for it, however long the line.
func (r *Reader) dropLine() error {
	for {
		if i := bytes.IndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			r.start += i + 1
			r.line++
			return nil
		}
		r.start = r.end
		if r.eof {
			if r.readErr != nil {
				return fmt.Errorf("%s: %w", r.name, r.readErr)
			}
			r.line++
			r.lastNoEOL = true
			return nil
		}
		r.fill()
	}
}

// syntaxError describes why value is not JSON, in encoding/json's words.
func (r *Reader) syntaxError(value []byte, line int) error {
	var v json.RawMessage
	err := json.Unmarshal(value, &v)
	if err == nil {
		err = errors.New("malformed JSON")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && int(se.Offset) <= len(value) {
		if at := line + bytes.Count(value[:se.Offset-1], []byte{'\n'}); at != line {
			return r.errorf(line, "invalid JSONL envelope: %v (at line %d; is this line cut short?)", err, at)
		}
	}
	return r.errorf(line, "invalid JSONL envelope: %v", err)
}

// badValue reports a value that does not start an object.
func (r *Reader) badValue(acc []byte, line int) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(acc))
	if err := dec.Decode(&v); err != nil {
		return r.syntaxError(acc, line)
	}
	return r.errorf(line, "invalid JSONL envelope: expected a JSON object, got %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}
