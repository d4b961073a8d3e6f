package httpcapture

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// A response in a content-coding is forwarded as the server sent it and
// logged decoded, on the log writer's side: decoding never holds up the
// bytes on their way to the client (a small compressed event stream can
// decode to millions of events).
//
// A body logged whole is decoded in one go when its observation is framed
// (decodeBody). An event stream is decoded as it goes, chunk by chunk in
// queue order, so that each event is framed in the place of the chunk that
// completed it (zstream). The decoders of the standard library (and
// brotli's) pull their input from a reader, while the chunks are pushed to
// the writer one by one, so a stream's decoder runs on a goroutine of its
// own, reading from an inflater: write hands it one chunk and waits until
// it asks for the next, by when everything the chunk completes has gone to
// the sink. (gzip and deflate hand on everything a flushed block holds
// before asking for more input; brotli may keep a little back, so for a
// streamed brotli body an event can be numbered a chunk late.)

// decodableCoding returns the one content-coding of a response the log
// can decode ("" for identity), and whether there is such a coding.
func decodableCoding(contentEncoding []string) (coding string, ok bool) {
	var codings []string
	for _, v := range contentEncoding {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	switch len(codings) {
	case 0:
		return "", true
	case 1:
		switch codings[0] {
		case "gzip", "x-gzip", "deflate", "br":
			return codings[0], true
		}
	}
	return strings.Join(codings, ", "), false
}

// inflater decodes one compressed event stream for the log.
type inflater struct {
	sink func([]byte) // called on the decoder's goroutine, while write or close waits

	in      chan []byte
	want    chan struct{} // the decoder needs input; at most one outstanding
	done    chan struct{}
	quit    <-chan struct{} // closed: no more input will come, stop at once
	waiting bool            // a want was taken and not yet answered
	closed  bool

	// The decoder goroutine's side.
	cur []byte
	eof bool
}

func newInflater(coding string, sink func([]byte), quit <-chan struct{}) *inflater {
	d := &inflater{sink: sink, in: make(chan []byte), want: make(chan struct{}, 1), done: make(chan struct{}), quit: quit}
	go d.run(coding)
	return d
}

// write decodes chunk; everything it completes reaches the sink first.
func (d *inflater) write(chunk []byte) {
	if d.closed || !d.wait() {
		return
	}
	select {
	case d.in <- chunk:
		d.waiting = false
	case <-d.done:
		return
	}
	d.wait()
}

// wait blocks until the decoder asks for input, or has stopped.
func (d *inflater) wait() bool {
	if d.waiting {
		return true
	}
	select {
	case <-d.want:
		d.waiting = true
		return true
	case <-d.done:
		return false
	}
}

// close ends the input and waits for the decoder to hand on what is left.
func (d *inflater) close() {
	if d.closed {
		return
	}
	d.closed = true
	close(d.in)
	<-d.done
}

// run is the decoder goroutine.
func (d *inflater) run(coding string) {
	defer close(d.done)
	var (
		r   io.Reader
		err error
	)
	if coding == "deflate" && isZlib(d.peek(2)) {
		coding = "zlib"
	}
	if r, err = newDecoder(coding, d); err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			d.sink(buf[:n])
		}
		if err != nil {
			return // the end, or a body that does not decode: the log keeps what did
		}
	}
}

// newDecoder reads the content-coding coding from src ("zlib" for a
// deflate body with a zlib header). A test may replace it.
var newDecoder = func(coding string, src io.Reader) (io.Reader, error) {
	switch coding {
	case "gzip", "x-gzip":
		return gzip.NewReader(src)
	case "zlib":
		return zlib.NewReader(src)
	case "deflate":
		return flate.NewReader(src), nil
	case "br":
		return brotli.NewReader(src), nil
	}
	return nil, errors.New("unknown content-coding " + coding)
}

// isZlib reports whether hdr starts a zlib stream. Servers send "deflate"
// both as zlib (what RFC 9110 says) and as a bare deflate stream; the zlib
// header tells them apart.
func isZlib(hdr []byte) bool {
	return len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0
}

// decodeBody decodes a whole compressed body, keeping at most limit bytes.
// truncated is set when the body was cut (it came in truncated, it decodes
// to more than limit, or its end does not decode): the log then keeps the
// part that decoded.
func decodeBody(coding string, body []byte, truncated bool, limit int) ([]byte, bool) {
	if coding == "deflate" && isZlib(body[:min(2, len(body))]) {
		coding = "zlib"
	}
	r, err := newDecoder(coding, bytes.NewReader(body))
	if err != nil {
		return nil, truncated // not in that coding at all: a bare status
	}
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if len(out) > limit {
		out, truncated = out[:limit], true
	}
	if err != nil && len(out) > 0 {
		truncated = true
	}
	return out, truncated
}

// next waits for the next chunk; false at the end of the input.
func (d *inflater) next() bool {
	for len(d.cur) == 0 {
		if d.eof {
			return false
		}
		d.want <- struct{}{}
		select {
		case chunk, ok := <-d.in:
			if !ok {
				d.eof = true
				return false
			}
			d.cur = chunk
		case <-d.quit:
			d.eof = true
			return false
		}
	}
	return true
}

// peek returns up to n bytes of input without taking them.
func (d *inflater) peek(n int) []byte {
	for len(d.cur) < n {
		// Copied first: asking for more input hands the chunk back.
		have := append([]byte(nil), d.cur...)
		d.cur = nil
		if !d.next() {
			d.cur = have
			break
		}
		d.cur = append(have, d.cur...)
	}
	return d.cur[:min(n, len(d.cur))]
}

// Read and ReadByte are the decoder's input. Being an io.ByteReader keeps
// flate from reading ahead through a bufio.Reader of its own.
func (d *inflater) Read(p []byte) (int, error) {
	if !d.next() {
		return 0, io.EOF
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

func (d *inflater) ReadByte() (byte, error) {
	if !d.next() {
		return 0, io.EOF
	}
	c := d.cur[0]
	d.cur = d.cur[1:]
	return c, nil
}
